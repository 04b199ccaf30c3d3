/**
 * Reads a body that holds one JSON document, or a stream of JSON objects: NDJSON (one per line)
 * or the concatenated, pretty-printed objects `kubectl get --watch -o json` prints. Each value of
 * a stream keeps the line it starts on, so a bad one can be named (`line 7`).
 *
 * @example
 *   readJsonValues('{"a":1}\n{"b":2}\n') // { stream: true, values: [{ value: {a:1}, line: 1 }, { value: {b:2}, line: 2 }] }
 */
import { ApiError } from '../http/errors.js';

export interface JsonValue {
  value: unknown;
  /** 1-based line where the value starts */
  line: number;
}

export interface JsonValues {
  /** false when the whole body is one JSON document */
  stream: boolean;
  values: JsonValue[];
}

const NEWLINE = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const OPENERS = new Set([123, 91]); // { [
const CLOSERS = new Set([125, 93]); // } ]
const WHITESPACE = new Set([32, 9, 13, 10]);

const invalid = (field: string, message: string) =>
  ApiError.validation([{ code: 'invalid_format', field, message, param: 'body' }]);

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function readJsonValues(text: string): JsonValues {
  try {
    return { stream: false, values: [{ value: JSON.parse(text), line: 1 }] };
  } catch {
    // Not one document: a stream, or broken. The scanner names the line of the bad value.
    return { stream: true, values: scanValues(text) };
  }
}

/** Splits top-level objects/arrays by bracket depth (outside strings), then parses each. */
function scanValues(text: string): JsonValue[] {
  const values: JsonValue[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (WHITESPACE.has(code)) {
      if (code === NEWLINE) line++;
      i++;
      continue;
    }
    const start = i;
    const startLine = line;
    if (!OPENERS.has(code)) throw invalid(`line ${startLine}`, 'expected a JSON object');
    let depth = 0;
    let inString = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === NEWLINE) line++;
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) {
        inString = true;
      } else if (OPENERS.has(c)) {
        depth++;
      } else if (CLOSERS.has(c)) {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
    }
    if (depth !== 0) throw invalid(`line ${startLine}`, 'is not valid JSON: the value is not terminated');
    try {
      values.push({ value: JSON.parse(text.slice(start, i)), line: startLine });
    } catch (error) {
      throw invalid(`line ${startLine}`, `is not valid JSON: ${reason(error)}`);
    }
  }
  return values;
}
