/**
 * Validates responses against the served /openapi.json: every response a test receives through
 * the harness must match the document's schema for its route, method and status.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import findMyWay, { type HTTPMethod } from 'find-my-way';

const addFormats = addFormatsModule as unknown as (ajv: unknown) => void;

type OpenApi = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
};

export interface ResponseValidator {
  /** Returns a list of problems (empty when the response conforms). */
  check(method: string, url: string, status: number, contentType: string | undefined, body: string): string[];
}

export function createResponseValidator(document: OpenApi): ResponseValidator {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi');
  const router = findMyWay();
  for (const [path, operations] of Object.entries(document.paths)) {
    const pattern = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const method of Object.keys(operations)) {
      router.on(method.toUpperCase() as HTTPMethod, pattern, () => undefined, { path, method });
    }
  }
  const compiled = new Map<string, ReturnType<typeof ajv.getSchema>>();

  return {
    check(method, url, status, contentType, body) {
      const path = url.split('?')[0] ?? '/';
      const found = router.find(method.toUpperCase() as HTTPMethod, path);
      if (!found) return []; // unknown routes answer the generic 404/405 error body, checked by tests
      const { path: docPath, method: docMethod } = found.store as { path: string; method: string };
      const responses = document.paths[docPath]?.[docMethod]?.responses ?? {};
      const response = responses[String(status)] ?? responses.default;
      if (!response) return [`${method} ${docPath}: status ${status} is not documented`];
      if (!response.content)
        return body.length === 0 ? [] : [`${method} ${docPath} ${status}: undocumented body`];
      if (!contentType?.startsWith('application/json')) return [];
      const media = Object.keys(response.content).find((type) => type.includes('json'));
      if (!media) return [];
      const pointer = `openapi#/paths/${docPath.replace(/~/g, '~0').replace(/\//g, '~1')}/${docMethod}/responses/${status in responses ? status : 'default'}/content/${media.replace(/\//g, '~1')}/schema`;
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.getSchema(pointer);
        compiled.set(pointer, validate);
      }
      if (!validate) return [`${method} ${docPath} ${status}: no schema at ${pointer}`];
      if (validate(JSON.parse(body))) return [];
      return (validate.errors ?? []).map(
        (e) => `${method} ${docPath} ${status}: ${e.instancePath} ${e.message}`,
      );
    },
  };
}
