/**
 * How response schemas become serializers: Fastify's own compiler (fast-json-stringify), with
 * each distinct schema compiled once. Fastify compiles a serializer for every route, status and
 * content type at boot, and the API's routes repeat the same few documents: every route answers
 * the same error envelope for 400, 401, 403, 404, 429 and 500. An app asked for 1,077 serializers
 * of 66 distinct schemas; compiling each once halves the built app's build and ready (about 0.5 s
 * of CPU less, docs/performance.md, "Fix 72"). A server pays it at every start (a rolling restart,
 * a kill-and-restart cycle), the test suite once per test file.
 *
 * @example
 *   Fastify({ schemaController: { compilersFactory: { buildSerializer: buildResponseSerializer } } })
 */
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type SerializerCompiler = ReturnType<SerializerFactory>;
type Serializer = ReturnType<SerializerCompiler>;

const fastifyDefault: SerializerFactory = SerializerSelector();

/**
 * Compilers by the shared schemas and options they were built with. Fastify calls the factory
 * once per plugin scope; scopes with the same shared schemas share one compiler, and so do apps
 * (the tests build several per process). A serializer keeps no state between calls, so one
 * serves every route whose schema is the same text. Bounded by the distinct schemas in the code.
 */
const compilers = new Map<string, SerializerCompiler>();

export const buildResponseSerializer: SerializerFactory = (externalSchemas = {}, options = {}) => {
  const sharedKey = JSON.stringify([externalSchemas, options]);
  let compiler = compilers.get(sharedKey);
  if (!compiler) {
    compiler = compilingEachSchemaOnce(fastifyDefault(externalSchemas, options));
    compilers.set(sharedKey, compiler);
  }
  return compiler;
};

function compilingEachSchemaOnce(compile: SerializerCompiler): SerializerCompiler {
  const compiled = new Map<string, Serializer>();
  return (route) => {
    const text = JSON.stringify(route.schema);
    let serialize = compiled.get(text);
    if (!serialize) {
      serialize = compile(route);
      compiled.set(text, serialize);
    }
    return serialize;
  };
}
