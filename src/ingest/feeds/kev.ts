/**
 * The CISA Known Exploited Vulnerabilities catalog
 * (https://www.cisa.gov/known-exploited-vulnerabilities-catalog), JSON:
 * `{title, catalogVersion, dateReleased, count, vulnerabilities: [{cveID, vendorProject, product,
 * vulnerabilityName, dateAdded, shortDescription, requiredAction, dueDate,
 * knownRansomwareCampaignUse, notes, cwes}]}`. About 1,500 entries (a few MB): read whole.
 * `cveID` and `dateAdded` are required; the other fields are kept when present.
 */
import { normalizeTimestamp } from '../vulnerabilities/timestamp.js';
import { FeedFormatError } from './feed-format-error.js';

export interface KevEntry {
  cveId: string;
  vendorProject: string | null;
  product: string | null;
  vulnerabilityName: string | null;
  /** `YYYY-MM-DD`. */
  dateAdded: string;
  shortDescription: string | null;
  requiredAction: string | null;
  /** `YYYY-MM-DD`: the remediation deadline for US federal agencies. */
  dueDate: string | null;
  /** `Known` or `Unknown`, as CISA writes it. */
  knownRansomwareCampaignUse: string | null;
  notes: string | null;
  cwes: string[];
}

export interface KevCatalog {
  title: string | null;
  catalogVersion: string | null;
  /** RFC 3339 UTC with milliseconds. */
  dateReleased: string | null;
  /** One entry per CVE (a repeated cveID keeps its first entry). */
  entries: KevEntry[];
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

const fail = (field: string, detail: string): never => {
  throw new FeedFormatError('kev', `${field} ${detail}`, null, field);
};

/** Tells a KEV catalog from any other JSON document. */
export function looksLikeKev(doc: unknown): doc is JsonObject {
  if (!isObject(doc) || !Array.isArray(doc.vulnerabilities)) return false;
  const first = doc.vulnerabilities[0];
  return 'catalogVersion' in doc || (isObject(first) && 'cveID' in first);
}

function text(entry: JsonObject, key: string, path: string): string | null {
  const value = entry[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    fail(join(path, key), `is ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}, expected a string`);
  return (value as string).trim() === '' ? null : (value as string).trim();
}

function date(entry: JsonObject, key: string, path: string, required: boolean): string | null {
  const value = text(entry, key, path);
  if (value === null) return required ? fail(join(path, key), 'is missing') : null;
  if (!DATE.test(value) || normalizeTimestamp(value) === undefined) {
    fail(join(path, key), `is ${JSON.stringify(value)}, expected a date YYYY-MM-DD`);
  }
  return value;
}

function readEntry(raw: unknown, path: string): KevEntry {
  if (!isObject(raw)) return fail(path, 'is not an object');
  const cveId = text(raw, 'cveID', path);
  if (cveId === null) return fail(`${path}.cveID`, 'is missing');
  if (!CVE_ID.test(cveId))
    fail(`${path}.cveID`, `is ${JSON.stringify(cveId)}, expected an id such as CVE-2024-1234`);
  const cwes = raw.cwes ?? [];
  if (!Array.isArray(cwes) || cwes.some((cwe) => typeof cwe !== 'string'))
    fail(`${path}.cwes`, 'is not a list of strings');
  return {
    cveId: cveId.toUpperCase(),
    vendorProject: text(raw, 'vendorProject', path),
    product: text(raw, 'product', path),
    vulnerabilityName: text(raw, 'vulnerabilityName', path),
    dateAdded: date(raw, 'dateAdded', path, true) as string,
    shortDescription: text(raw, 'shortDescription', path),
    requiredAction: text(raw, 'requiredAction', path),
    dueDate: date(raw, 'dueDate', path, false),
    knownRansomwareCampaignUse: text(raw, 'knownRansomwareCampaignUse', path),
    notes: text(raw, 'notes', path),
    cwes: cwes as string[],
  };
}

/** Reads a parsed KEV document (check it with looksLikeKev first). */
export function readKevCatalog(doc: JsonObject): KevCatalog {
  const released = text(doc, 'dateReleased', '');
  const dateReleased = released === null ? null : (normalizeTimestamp(released) ?? null);
  if (released !== null && dateReleased === null)
    fail('dateReleased', `is ${JSON.stringify(released)}, expected an RFC 3339 timestamp`);
  const entries = new Map<string, KevEntry>();
  (doc.vulnerabilities as unknown[]).forEach((raw, index) => {
    const entry = readEntry(raw, `vulnerabilities[${index}]`);
    if (!entries.has(entry.cveId)) entries.set(entry.cveId, entry);
  });
  if (entries.size === 0) fail('vulnerabilities', 'is empty');
  return {
    title: text(doc, 'title', ''),
    catalogVersion: text(doc, 'catalogVersion', ''),
    dateReleased,
    entries: [...entries.values()],
  };
}
