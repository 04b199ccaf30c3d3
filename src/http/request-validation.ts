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
import AjvModule, { type Options, type ValidateFunction } from 'ajv';
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
export function buildRequestValidator(
  externalSchemas: Record<string, unknown> = {},
): RequestValidatorCompiler {
  const sharedKey = JSON.stringify(externalSchemas);
  let compiler = compilers.get(sharedKey);
  if (!compiler) {
    compiler = createCompiler(externalSchemas);
    compilers.set(sharedKey, compiler);
  }
  return compiler;
}

type RequestValidatorCompiler = (route: { schema: unknown; httpPart?: string }) => ValidateFunction;

/**
 * Compilers by the shared schemas they know. Fastify calls the factory once per route in each
 * plugin scope, and every call used to build two Ajv instances, each compiling the JSON Schema
 * meta-schema and then every route schema again: about 2 s of CPU per app. A server pays it at
 * every boot (a kill-and-restart cycle, a rolling restart), the test suite once per test file.
 * Same shared schemas, same compiler: a validator keeps no state across calls (`errors` is set
 * by each synchronous call), so sharing one between routes and apps is safe. Bounded by the
 * distinct shared-schema sets and route schemas in the code.
 */
const compilers = new Map<string, RequestValidatorCompiler>();

function createCompiler(externalSchemas: Record<string, unknown>): RequestValidatorCompiler {
  const forText = createAjv('array');
  const forBody = createAjv(false);
  for (const shared of Object.values(externalSchemas)) {
    forText.addSchema(shared as object);
    forBody.addSchema(shared as object);
  }
  const compiled = new Map<string, ValidateFunction>();
  return ({ schema, httpPart }) => {
    const isBody = httpPart === 'body';
    const text = JSON.stringify(schema);
    const key = `${isBody ? 'body' : 'text'}\u0000${text}`;
    const cached = compiled.get(key);
    if (cached) return cached;
    const ajv = isBody ? forBody : forText;
    const id = (schema as { $id?: string }).$id;
    // Ajv refuses to compile a second schema with the same $id: reuse the first.
    const validate = (id ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema as object);
    // Only a schema with a number in it can coerce text into one: the others (an id in the path,
    // on every account-scoped request) skip the check.
    const mayHoldNumbers = /"type":(\[[^\]]*)?"(integer|number)"/.test(text) || text.includes('"$ref"');
    const checked = isBody || !mayHoldNumbers ? validate : refusingUnsafeNumbers(validate);
    compiled.set(key, checked);
    return checked;
  };
}

/** A number text may not turn into: not finite, or beyond what a double holds exactly. */
function unsafeNumber(value: unknown): 'type' | 'maximum' | undefined {
  if (typeof value !== 'number') return undefined;
  if (!Number.isFinite(value)) return 'type';
  return Math.abs(value) > Number.MAX_SAFE_INTEGER ? 'maximum' : undefined;
}

/** The first top-level field holding an unsafe number (or an array holding one), and why. */
function unsafeField(data: unknown): { field: string; keyword: 'type' | 'maximum' } | undefined {
  if (!data || typeof data !== 'object') return undefined;
  for (const [field, value] of Object.entries(data)) {
    const keyword = Array.isArray(value) ? value.map(unsafeNumber).find(Boolean) : unsafeNumber(value);
    if (keyword) return { field, keyword };
  }
  return undefined;
}

/**
 * Text coercion turns `limit=Infinity` or `limit=1e309` into Infinity, which ajv 8 then lets
 * through `integer`, `minimum` and `maximum` alike, and `offset=1e29` into a number no bigint
 * holds; the database refused both (a 500). No query, path or header value means such a number:
 * Infinity is a type error like `limit=abc`, a number beyond 2^53 is out of range.
 */
function refusingUnsafeNumbers(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    const valid = validate(data);
    checked.errors = validate.errors;
    const unsafe = valid ? unsafeField(data) : undefined;
    if (!unsafe) return valid;
    checked.errors = [
      {
        instancePath: `/${unsafe.field}`,
        schemaPath: '',
        keyword: unsafe.keyword,
        params: {},
        message:
          unsafe.keyword === 'type' ? 'must be a finite number' : 'must be at most 2^53 - 1 in magnitude',
      },
    ];
    return false;
  }) as ValidateFunction;
  checked.errors = null;
  return checked;
}
