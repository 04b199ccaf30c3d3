/**
 * Strict, path-aware access to a parsed JSON document, bound to one scan format so every error
 * names the format and the exact field. "Validate strictly what you use, tolerate what you don't":
 * readers only ask for the fields they use, and unknown fields are never looked at.
 *
 * Absent and `null` are the same thing (Go scanners write `null` for empty lists), and an
 * optional empty string counts as absent too.
 *
 * @example
 *   const fields = new Fields('trivy');
 *   const name = fields.requiredString(vuln, 'PkgName', 'Results[2].Vulnerabilities[0]');
 */
import type { ScanFormat } from './model.js';
import { ScanFormatError } from './scan-format-error.js';
import { normalizeTimestamp } from './timestamp.js';

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `Results[2]` + `PkgName` -> `Results[2].PkgName`; the root has no leading dot. */
export const pathOf = (parent: string, key: string): string => (parent === '' ? key : `${parent}.${key}`);
export const itemPath = (parent: string, index: number): string => `${parent}[${index}]`;

/** A value quoted for an error message, cut short so a huge field cannot flood the response. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'missing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return `a ${typeof value}`;
}

export class Fields {
  constructor(readonly format: ScanFormat) {}

  fail(path: string, code: ScanFormatError['code'], what: string): never {
    throw new ScanFormatError(this.format, path || null, code, `${path || 'the document'} ${what}`);
  }

  private wrongType(path: string, value: unknown, expected: string): never {
    if (value === null || value === undefined) this.fail(path, 'required', 'is missing');
    return this.fail(path, 'invalid_type', `is ${describe(value)}, expected ${expected}`);
  }

  object(value: unknown, path: string): JsonObject {
    return isObject(value) ? value : this.wrongType(path, value, 'an object');
  }

  requiredObject(parent: JsonObject, key: string, parentPath: string): JsonObject {
    return this.object(parent[key], pathOf(parentPath, key));
  }

  optionalObject(parent: JsonObject, key: string, parentPath: string): JsonObject | null {
    const value = parent[key];
    return value === null || value === undefined ? null : this.object(value, pathOf(parentPath, key));
  }

  requiredArray(parent: JsonObject, key: string, parentPath: string): unknown[] {
    const value = parent[key];
    return Array.isArray(value) ? value : this.wrongType(pathOf(parentPath, key), value, 'an array');
  }

  /** A list that may be absent: absent reads as empty. */
  optionalArray(parent: JsonObject, key: string, parentPath: string): unknown[] {
    const value = parent[key];
    if (value === null || value === undefined) return [];
    return Array.isArray(value) ? value : this.wrongType(pathOf(parentPath, key), value, 'an array');
  }

  requiredString(parent: JsonObject, key: string, parentPath: string): string {
    const path = pathOf(parentPath, key);
    const value = parent[key];
    if (typeof value !== 'string') return this.wrongType(path, value, 'a string');
    if (value.trim() === '') this.fail(path, 'required', 'is empty');
    return value.trim();
  }

  optionalString(parent: JsonObject, key: string, parentPath: string): string | null {
    const value = parent[key];
    if (value === null || value === undefined) return null;
    if (typeof value !== 'string') return this.wrongType(pathOf(parentPath, key), value, 'a string');
    return value.trim() === '' ? null : value.trim();
  }

  optionalNumber(parent: JsonObject, key: string, parentPath: string): number | null {
    const value = parent[key];
    if (value === null || value === undefined) return null;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return this.wrongType(pathOf(parentPath, key), value, 'a number');
    }
    return value;
  }

  /** A CVSS base score: a number from 0 to 10. */
  optionalScore(parent: JsonObject, key: string, parentPath: string): number | null {
    const score = this.optionalNumber(parent, key, parentPath);
    if (score !== null && (score < 0 || score > 10)) {
      this.fail(pathOf(parentPath, key), 'out_of_range', `is ${score}, expected a CVSS score from 0 to 10`);
    }
    return score;
  }

  /** A list of non-empty strings (empty items dropped). */
  stringArray(parent: JsonObject, key: string, parentPath: string): string[] {
    const path = pathOf(parentPath, key);
    const strings: string[] = [];
    this.optionalArray(parent, key, parentPath).forEach((item, index) => {
      if (typeof item !== 'string') this.wrongType(itemPath(path, index), item, 'a string');
      if (item.trim() !== '') strings.push(item.trim());
    });
    return strings;
  }

  /** An optional RFC 3339 timestamp, normalized to UTC with milliseconds. */
  optionalTimestamp(parent: JsonObject, key: string, parentPath: string): string | null {
    const raw = this.optionalString(parent, key, parentPath);
    if (raw === null) return null;
    const normalized = normalizeTimestamp(raw);
    if (normalized === undefined) {
      this.fail(
        pathOf(parentPath, key),
        'invalid_format',
        `is ${quote(raw)}, expected an RFC 3339 timestamp`,
      );
    }
    return normalized;
  }
}
