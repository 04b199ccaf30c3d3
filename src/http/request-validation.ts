/**
 * How request schemas are checked. Query, path and header values arrive as text, so they are
 * coerced to the schema's types (`limit=10` -> 10, a lone value -> a one-item array). A JSON body
 * already carries its types: coercing it would quietly turn `{"name": 5}` into `"5"` and
 * `{"secret_key": true}` into `"true"`, so bodies are checked as sent (wrong type: invalid_type).
 * Both engines report every bad field (one validation detail each) and reject unknown body fields
 * rather than dropping them (no mass assignment).
 *
 * @example
 *   Fastify({ schemaController: { compilersFactory: { buildValidator: buildRequestValidator } } })
 */
import AjvModule, { type Options } from 'ajv';
import ajvFormatsModule from 'ajv-formats';

// Both packages are CommonJS: at run time the default import is the class/plugin itself.
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const addFormats = ajvFormatsModule as unknown as (ajv: InstanceType<typeof Ajv>) => void;

const COMMON: Options = { allErrors: true, removeAdditional: false, useDefaults: true, addUsedSchema: false };

function createAjv(coerceTypes: Options['coerceTypes']) {
  const ajv = new Ajv({ ...COMMON, coerceTypes });
  addFormats(ajv);
  return ajv;
}

/**
 * Fastify's validator factory (the `schemaController.compilersFactory.buildValidator` option).
 * Set at construction rather than with setValidatorCompiler: Fastify rebuilds a scope's compiler
 * from this factory whenever shared schemas are added (addSchema), and a compiler set afterwards
 * would silently give way to the default one (allErrors off, bodies coerced).
 */
export function buildRequestValidator(externalSchemas: Record<string, unknown> = {}) {
  const forText = createAjv('array');
  const forBody = createAjv(false);
  for (const shared of Object.values(externalSchemas)) {
    forText.addSchema(shared as object);
    forBody.addSchema(shared as object);
  }
  return ({ schema, httpPart }: { schema: unknown; httpPart?: string }) => {
    const ajv = httpPart === 'body' ? forBody : forText;
    const id = (schema as { $id?: string }).$id;
    // Ajv refuses to compile a second schema with the same $id: reuse the first.
    return (id ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema as object);
  };
}
