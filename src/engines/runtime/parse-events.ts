/**
 * Reads an NDJSON runtime push: each non-blank line is either a runtime event (it has `type`) or
 * a Falco JSON alert (it has `rule` and `output_fields`), detected per line. The first bad line
 * stops the parse and is reported with its 1-based number and its problem, so the endpoint can
 * answer 400 and store nothing from that push. Timestamps come out as RFC 3339 UTC with
 * milliseconds; credentials in headers never leave the parser.
 *
 * @example
 *   const result = parseRuntimeEvents(body);
 *   if (!result.ok) throw badLine(result.error); // { line: 7, field: 'process.pid', code, message }
 */
import Compile from 'typebox/compile';
import type { ValidationCode } from '../../http/errors.js';
import { fieldName } from '../../http/validation.js';
import { EVENT_SCHEMAS, EVENT_TYPES, type EventType, type RuntimeEvent } from './event-schema.js';
import { FalcoAlertSchema, isFalcoShaped, mapFalcoAlert } from './falco.js';
import { isIpAddress } from './ip.js';

export interface LineProblem {
  /** 1-based line number in the (decompressed) body */
  line: number;
  /** the field of the event, `line` when the line as a whole is wrong */
  field: string;
  code: ValidationCode;
  message: string;
}

export interface ParsedPush {
  ok: true;
  events: RuntimeEvent[];
  /** how many accepted lines were native events and how many Falco alerts */
  formats: { native: number; falco: number };
  /** Falco alerts that name no workload container (host events): valid input, nothing to learn */
  skipped: { line: number; reason: string }[];
}

export type ParseResult = ParsedPush | { ok: false; error: LineProblem };

/** Headers kept from http_request events; credentials keep only their scheme. */
const HEADERS_OF_INTEREST = new Set([
  'user-agent',
  'content-type',
  'x-forwarded-for',
  'x-request-id',
  'authorization',
]);

const validators = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, Compile(EVENT_SCHEMAS[type])]),
) as Record<EventType, ReturnType<typeof Compile>>;
const falcoValidator = Compile(FalcoAlertSchema);

const CODE_BY_KEYWORD: Record<string, ValidationCode> = {
  required: 'required',
  type: 'invalid_type',
  format: 'invalid_format',
  pattern: 'invalid_format',
  additionalProperties: 'unknown_field',
  enum: 'invalid_value',
  const: 'invalid_value',
};

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: unknown;
  message: string;
}

const join = (base: string, child: string) => (base ? `${base}.${child}` : child);

function describeErrors(errors: readonly SchemaError[], line: number): LineProblem {
  // `boolean` and `anyOf` errors repeat what a more specific error of the same value says.
  const first = errors.find((e) => e.keyword !== 'boolean' && e.keyword !== 'anyOf') ?? errors[0];
  const params = (first?.params ?? {}) as Record<string, unknown>;
  const at = fieldName(first?.instancePath ?? '');
  const problem = (field: string, message: string): LineProblem => ({
    line,
    field: field || 'line',
    code: CODE_BY_KEYWORD[first?.keyword ?? ''] ?? 'out_of_range',
    message,
  });
  switch (first?.keyword) {
    case 'required':
      return problem(join(at, String((params.requiredProperties as string[])[0])), 'is required');
    case 'additionalProperties':
      return problem(join(at, String((params.additionalProperties as string[])[0])), 'is not a known field');
    case 'enum':
      return problem(at, `must be one of: ${(params.allowedValues as string[]).join(', ')}`);
    case 'const': {
      const allowed = errors.filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath);
      const values = allowed.map((e) => String((e.params as { allowedValue: unknown }).allowedValue));
      return problem(at, `must be one of: ${values.join(', ')}`);
    }
    default:
      return problem(at, first?.message ?? 'is not valid');
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks JSON Schema cannot express (an IP literal, a real instant) and normalizes the event. */
function finish(event: RuntimeEvent, line: number): LineProblem | RuntimeEvent {
  const bad = (field: string, message: string): LineProblem => ({
    line,
    field,
    code: 'invalid_format',
    message,
  });
  const time = Date.parse(event.timestamp);
  if (Number.isNaN(time)) return bad('timestamp', 'is not a valid instant');
  event.timestamp = new Date(time).toISOString();
  if (event.type === 'network_connect' && !isIpAddress(event.connection.address)) {
    return bad('connection.address', 'must be an IPv4 or IPv6 address');
  }
  if (event.type === 'http_request') {
    if (!isIpAddress(event.http.source.address))
      return bad('http.source.address', 'must be an IPv4 or IPv6 address');
    if (!isIpAddress(event.http.destination.address)) {
      return bad('http.destination.address', 'must be an IPv4 or IPv6 address');
    }
    if (event.http.headers) event.http.headers = keepHeadersOfInterest(event.http.headers);
  }
  return event;
}

function keepHeadersOfInterest(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADERS_OF_INTEREST.has(name)) continue;
    // The scheme says how the caller authenticated; the credential itself is never kept.
    kept[name] = name === 'authorization' ? (value.trim().split(/\s+/)[0] ?? '') : value;
  }
  return kept;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function parseRuntimeEvents(body: Buffer | string): ParseResult {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, error: invalidUtf8Line(bytes) };
  }
  const events: RuntimeEvent[] = [];
  const skipped: ParsedPush['skipped'] = [];
  const formats = { native: 0, falco: 0 };
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const content = text.slice(start, end).trim();
    start = end + 1;
    if (content === '') continue;
    const outcome = parseLine(content, line);
    if ('code' in outcome) return { ok: false, error: outcome };
    if ('reason' in outcome) skipped.push({ line, reason: outcome.reason });
    else {
      events.push(outcome.event);
      formats[outcome.format]++;
    }
  }
  return { ok: true, events, formats, skipped };
}

/** The body as a whole is decoded once; only when that fails is the bad line looked for. */
function invalidUtf8Line(bytes: Buffer): LineProblem {
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    try {
      decoder.decode(bytes.subarray(start, end));
    } catch {
      return { line, field: 'line', code: 'invalid_format', message: 'is not valid UTF-8' };
    }
    start = end + 1;
  }
  return { line: 1, field: 'line', code: 'invalid_format', message: 'is not valid UTF-8' };
}

type LineOutcome = LineProblem | { reason: string } | { event: RuntimeEvent; format: 'native' | 'falco' };

function parseLine(text: string, line: number): LineOutcome {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      line,
      field: 'line',
      code: 'invalid_format',
      message: `is not valid JSON (${(error as Error).message})`,
    };
  }
  if (!isObject(value))
    return { line, field: 'line', code: 'invalid_type', message: 'must be a JSON object' };
  if (isFalcoShaped(value)) {
    if (!falcoValidator.Check(value)) return describeErrors(falcoValidator.Errors(value), line);
    const mapped = mapFalcoAlert(value);
    if (mapped.kind === 'skipped') return { reason: mapped.reason };
    // The mapping can still produce something the format refuses (an empty path, a bad address).
    const check = validators[mapped.event.type];
    const event = check.Check(mapped.event)
      ? finish(mapped.event, line)
      : describeErrors(check.Errors(mapped.event), line);
    if (!('code' in event)) return { event, format: 'falco' };
    return {
      ...event,
      field: 'output_fields',
      message: `map to a ${mapped.event.type} event whose ${event.field} ${event.message}`,
    };
  }
  const type = value.type;
  if (typeof type !== 'string' || !(EVENT_TYPES as string[]).includes(type)) {
    return {
      line,
      field: 'type',
      code: type === undefined ? 'required' : 'invalid_value',
      message: `must be one of: ${EVENT_TYPES.join(', ')} (or the line must be a Falco alert with rule and output_fields)`,
    };
  }
  const check = validators[type as EventType];
  if (!check.Check(value)) return describeErrors(check.Errors(value), line);
  const event = finish(value as RuntimeEvent, line);
  return 'code' in event ? event : { event, format: 'native' };
}
