/**
 * The operations of the app's served /openapi.json, in a shape the generated suites (isolation
 * matrix, fuzzing) iterate over. Nothing here lists routes by hand: a new route is in the document,
 * so it is in the suites.
 */
import { ROLES, type Role } from '../../src/http/actor.js';
import type { TestApp } from '../support/harness.js';
import { ROUTES } from './route-table.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema fragments of the document
export type JsonSchema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
  description: string;
}

export interface Operation {
  method: Method;
  /** OpenAPI path, `{name}` for parameters */
  path: string;
  parameters: Parameter[];
  /** media types of the request body, with the JSON one's schema */
  bodyTypes: string[];
  bodySchema: JsonSchema | undefined;
  /** `security: []` in the document: no session needed */
  public: boolean;
  /** the lowest role that may call it (security route table; GET viewer, else editor when absent) */
  role: Role;
  /** the filter keys the `filters` parameter documents ("with keys a, b, c") */
  filterKeys: string[];
  /** the sort fields the `sort` parameter documents ("field one of a, b, c") */
  sortFields: string[];
}

const listAfter = (text: string, marker: RegExp): string[] => marker.exec(text)?.[1]?.split(/,\s*/) ?? [];

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document
export async function loadOperations(t: TestApp): Promise<{ document: any; operations: Operation[] }> {
  const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(
    document.paths as Record<string, Record<string, JsonSchema>>,
  )) {
    for (const [lower, op] of Object.entries(methods)) {
      const method = lower.toUpperCase() as Method;
      const parameters: Parameter[] = (op.parameters ?? []).map((p: JsonSchema) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: p.schema ?? {},
        description: p.description ?? '',
      }));
      const content: Record<string, JsonSchema> = op.requestBody?.content ?? {};
      const jsonType = Object.keys(content).find((type) => type.includes('json'));
      const described = (name: string) => parameters.find((p) => p.name === name)?.description ?? '';
      const tableRole = ROUTES.find((route) => route.method === method && route.path === path)?.role;
      operations.push({
        method,
        path,
        parameters,
        bodyTypes: Object.keys(content),
        bodySchema: jsonType ? content[jsonType]?.schema : undefined,
        public: Array.isArray(op.security) && op.security.length === 0,
        role: tableRole ?? (method === 'GET' ? 'viewer' : 'editor'),
        filterKeys: listAfter(described('filters'), /with keys ([a-z_]+(?:, [a-z_]+)*)/),
        sortFields: listAfter(described('sort'), /field one of ([a-z_]+(?:, [a-z_]+)*)/),
      });
    }
  }
  return { document, operations };
}

export const roleAtLeast = (role: Role, needed: Role): boolean =>
  ROLES.indexOf(role) >= ROLES.indexOf(needed);

/** `/a/{x}/b` with values for its parameters; values are percent-encoded. */
export function fillOperationPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

export const pathParameterNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
