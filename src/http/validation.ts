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
  minProperties: 'out_of_range',
  maxProperties: 'out_of_range',
  formatMinimum: 'out_of_range',
  formatMaximum: 'out_of_range',
  formatExclusiveMinimum: 'out_of_range',
  formatExclusiveMaximum: 'out_of_range',
  enum: 'invalid_value',
  const: 'invalid_value',
  dependentRequired: 'required',
  additionalProperties: 'unknown_field',
  unevaluatedProperties: 'unknown_field',
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

/** The field an error is about and what to tell the client. */
function describeError(error: FastifySchemaValidationError): { field: string; message: string } {
  const params = (error.params ?? {}) as Record<string, unknown>;
  const at = fieldName(error.instancePath);
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
      return { field: joinField(at, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { field: joinField(at, String(params.additionalProperty)), message: 'is not a known field' };
    case 'unevaluatedProperties':
      return { field: joinField(at, String(params.unevaluatedProperty)), message: 'is not a known field' };
    case 'enum':
      if (Array.isArray(params.allowedValues)) {
        return { field: at, message: `must be one of: ${params.allowedValues.join(', ')}` };
      }
      break;
    case 'const':
      return { field: at, message: `must be one of: ${String(params.allowedValue)}` };
  }
  return { field: at, message: error.message ?? 'is not valid' };
}

/**
 * One detail per offending field: the first error reported for a field wins, except that the
 * `const` errors of a union of literals (`anyOf: [{const: 'a'}, {const: 'b'}]`) merge into one
 * "must be one of: a, b".
 */
export function toValidationDetails(
  errors: readonly FastifySchemaValidationError[],
  context: string,
): ValidationDetail[] {
  const param = PARAM_BY_CONTEXT[context] ?? context;
  const byField = new Map<string, ValidationDetail & { keyword: string }>();
  for (const error of errors) {
    const described = describeError(error);
    const field = described.field || param;
    const seen = byField.get(field);
    if (seen?.keyword === 'const' && error.keyword === 'const') {
      seen.message += `, ${String((error.params as { allowedValue?: unknown }).allowedValue)}`;
    }
    if (seen) continue;
    byField.set(field, {
      code: CODE_BY_KEYWORD[error.keyword] ?? 'invalid_value',
      field,
      message: described.message,
      param,
      keyword: error.keyword,
    });
  }
  return [...byField.values()].map(({ keyword: _keyword, ...detail }) => detail);
}
