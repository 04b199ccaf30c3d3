/**
 * How request schemas are checked. Query, path and header values arrive as text, so they are
 * coerced to the schema's types (`limit=10` -> 10, a lone value -> a one-item array). A JSON body
 * already carries its types: coercing it would quietly turn `{"name": 5}` into `"5"` and
 * `{"secret_key": true}` into `"true"`, so bodies are checked as sent (wrong type: invalid_type).
 * Both engines report every bad field (one validation detail each) and reject unknown body fields
 * rather than dropping them (no mass assignment).
 *
 * @example
 *   registerRequestValidation(app); // before any route is added
 */
import AjvModule, { type Options } from 'ajv';
import ajvFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// Both packages are CommonJS: at run time the default import is the class/plugin itself.
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = ajvFormatsModule as unknown as (ajv: InstanceType<typeof Ajv>) => void;

const COMMON: Options = { allErrors: true, removeAdditional: false, useDefaults: true, addUsedSchema: false };

function createAjv(coerceTypes: Options['coerceTypes']) {
  const ajv = new Ajv({ ...COMMON, coerceTypes });
  addFormats(ajv);
  return ajv;
}

export function registerRequestValidation(app: FastifyInstance): void {
  const forText = createAjv('array');
  const forBody = createAjv(false);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? forBody : forText;
    const id = (schema as { $id?: string }).$id;
    // Ajv refuses to compile a second schema with the same $id: reuse the first.
    return (id ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema);
  });
}
