/** Turns JSON-schema (ajv) validation errors into the API's validation details. */
import type { FastifySchemaValidationError } from 'fastify';
import type { ValidationCode, ValidationDetail } from './errors.js';

const CODE_BY_KEYWORD: Record<string, ValidationCode> = {
  required: 'required',
  type: 'invalid_type',
  format: 'invalid_format',
  pattern: 'invalid_format',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  minLength: 'out_of_range',
  maxLength: 'out_of_range',
  minItems: 'out_of_range',
  maxItems: 'out_of_range',
  enum: 'invalid_value',
  const: 'invalid_value',
  additionalProperties: 'unknown_field',
};

const PARAM_BY_CONTEXT: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** `/roles/0/level` -> `roles[0].level` */
export function fieldName(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

function joinField(base: string, child: string): string {
  return base ? `${base}.${child}` : child;
}

/** One detail per offending field: the first error reported for a field wins. */
export function toValidationDetails(
  errors: readonly FastifySchemaValidationError[],
  context: string,
): ValidationDetail[] {
  const param = PARAM_BY_CONTEXT[context] ?? context;
  const byField = new Map<string, ValidationDetail>();
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    let field = fieldName(error.instancePath);
    let message = error.message ?? 'is not valid';
    if (error.keyword === 'required') {
      field = joinField(field, String(params.missingProperty));
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      field = joinField(field, String(params.additionalProperty));
      message = 'is not a known field';
    } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      message = `must be one of: ${params.allowedValues.join(', ')}`;
    }
    if (!field) field = param;
    if (byField.has(field)) continue;
    byField.set(field, {
      code: CODE_BY_KEYWORD[error.keyword] ?? 'invalid_value',
      field,
      message,
      param,
    });
  }
  return [...byField.values()];
}
