/**
 * Why a scan report was refused: which format was recognised (or none), the field path of the
 * problem and a message the ingestion endpoint can return as-is in its 400, e.g.
 * `recognised Trivy JSON, but Results[2].Vulnerabilities[0].PkgName is missing`.
 */
import type { ValidationCode } from '../../http/errors.js';
import { FORMAT_LABELS, type ScanFormat } from './model.js';

export class ScanFormatError extends Error {
  constructor(
    /** The format the document was recognised as, or null when none matched. */
    readonly format: ScanFormat | null,
    /** Path of the offending field (`Results[2].Vulnerabilities[0].PkgName`), or null for the whole document. */
    readonly field: string | null,
    readonly code: ValidationCode,
    /** What is wrong, naming the field: `Results[2].Vulnerabilities[0].PkgName is missing`. */
    readonly detail: string,
  ) {
    super(format ? `recognised ${FORMAT_LABELS[format]}, but ${detail}` : detail);
    this.name = 'ScanFormatError';
  }
}
