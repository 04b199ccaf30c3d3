/**
 * The entry point of scan ingestion: recognises the format of a parsed JSON document from its
 * content (never from a file name or a header) and reads it into the normalized model, or says
 * why it cannot: which format was recognised, if any, and which field is wrong.
 *
 * @example
 *   const result = readScanReport(JSON.parse(body));
 *   if (!result.ok) throw ApiError.validation([{ code: result.error.code, field: result.error.field ?? 'body',
 *     message: result.error.message, param: 'body' }], result.error.message);
 *   // result.report: { format, scanner, scannedAt, image, packages, vulnerabilities }
 */
import type { ValidationCode } from '../../http/errors.js';
import { looksLikeCycloneDx, readCycloneDxReport } from './cyclonedx.js';
import { isObject, type JsonObject } from './fields.js';
import { looksLikeGrype, readGrypeReport } from './grype.js';
import type { ScanFormat, ScanReport } from './model.js';
import { ScanFormatError } from './scan-format-error.js';
import { looksLikeTrivy, readTrivyReport } from './trivy.js';

export interface ScanReadFailure {
  /** The format recognised, or null when the document is none of them. */
  format: ScanFormat | null;
  /** Path of the offending field, or null when the whole document is at fault. */
  field: string | null;
  code: ValidationCode;
  /** `recognised Trivy JSON, but Results[2].Vulnerabilities[0].PkgName is missing` */
  message: string;
}

export type ScanReadResult = { ok: true; report: ScanReport } | { ok: false; error: ScanReadFailure };

const READERS: Array<{
  format: ScanFormat;
  looksLike: (doc: JsonObject) => boolean;
  read: (doc: JsonObject) => ScanReport;
}> = [
  { format: 'cyclonedx', looksLike: looksLikeCycloneDx, read: readCycloneDxReport },
  { format: 'trivy', looksLike: looksLikeTrivy, read: readTrivyReport },
  { format: 'grype', looksLike: looksLikeGrype, read: readGrypeReport },
];

const UNKNOWN_FORMAT =
  'is not a recognised scan report: expected Trivy JSON (SchemaVersion and Results), ' +
  'Grype JSON (matches and source) or CycloneDX JSON (bomFormat "CycloneDX")';

/** Which format a document is, from its content alone; null when none. */
export function detectScanFormat(doc: unknown): ScanFormat | null {
  if (!isObject(doc)) return null;
  return READERS.find((reader) => reader.looksLike(doc))?.format ?? null;
}

export function readScanReport(doc: unknown): ScanReadResult {
  if (!isObject(doc)) {
    const what = Array.isArray(doc) ? 'an array' : doc === null ? 'null' : `a ${typeof doc}`;
    return {
      ok: false,
      error: {
        format: null,
        field: null,
        code: 'invalid_type',
        message: `the document is ${what}; ${UNKNOWN_FORMAT.slice(3)}`,
      },
    };
  }
  const reader = READERS.find((candidate) => candidate.looksLike(doc));
  if (!reader) {
    return {
      ok: false,
      error: { format: null, field: null, code: 'invalid_value', message: `the document ${UNKNOWN_FORMAT}` },
    };
  }
  try {
    return { ok: true, report: reader.read(doc) };
  } catch (error) {
    if (!(error instanceof ScanFormatError)) throw error;
    return {
      ok: false,
      error: { format: error.format, field: error.field, code: error.code, message: error.message },
    };
  }
}
