/**
 * One severity and one CVSS score from a CycloneDX vulnerability's `ratings[]`, which lists a
 * rating per source and method (Trivy writes NVD, the distribution, GHSA...; Grype adds EPSS and
 * KEV as `method: other` scores that are not severities).
 *
 * The severity, in order:
 * 1. the ratings whose `source.name` is the vulnerability's own `source.name` (the feed the
 *    scanner matched against, as Trivy's JSON `Severity` does), when any of them is rated;
 * 2. otherwise every rated rating;
 * and among those the most severe. A rating is rated when its `severity` is a known level, or,
 * lacking one, when it is a CVSS rating with a score (the CVSS qualitative scale applies).
 * Nothing rated: unspecified.
 */
import { normalizeCvssVersion, preferredCvss } from './cvss.js';
import { type Fields, itemPath, type JsonObject, pathOf, quote } from './fields.js';
import type { Cvss } from './model.js';
import { mapSeverity, mostSevere, type Severity, severityFromCvss, vocabularyWords } from './severity.js';

interface Rating {
  source: string | null;
  severity: Severity | null;
  word: string | null;
  cvss: Cvss | null;
}

function readRating(fields: Fields, raw: unknown, path: string): Rating {
  const rating = fields.object(raw, path);
  const source = fields.optionalObject(rating, 'source', path);
  const method = fields.optionalString(rating, 'method', path);
  const isCvss = method !== null && /^CVSSv/i.test(method);
  // Only CVSS scores are bound to 0..10: `other` carries EPSS probabilities and KEV flags.
  const score = isCvss
    ? fields.optionalScore(rating, 'score', path)
    : fields.optionalNumber(rating, 'score', path);
  const word = fields.optionalString(rating, 'severity', path);
  let severity: Severity | null = null;
  if (word !== null) {
    const mapped = mapSeverity('cyclonedx', word);
    if (!mapped) {
      fields.fail(
        pathOf(path, 'severity'),
        'invalid_value',
        `is ${quote(word)}, expected one of ${vocabularyWords('cyclonedx').join(', ')}`,
      );
    }
    severity = mapped === 'unspecified' ? null : mapped;
  }
  const cvss =
    isCvss && score !== null
      ? {
          score,
          version: normalizeCvssVersion(method),
          vector: fields.optionalString(rating, 'vector', path),
        }
      : null;
  if (severity === null && cvss) severity = severityFromCvss(cvss.score);
  return {
    source: source ? fields.optionalString(source, 'name', pathOf(path, 'source')) : null,
    severity,
    word: word ?? (cvss ? `${method} ${cvss.score}` : null),
    cvss,
  };
}

export interface RatingChoice {
  severity: Severity;
  scannerSeverity: string | null;
  cvss: Cvss | null;
}

export function chooseRating(
  fields: Fields,
  vulnerability: JsonObject,
  path: string,
  feed: string | null,
): RatingChoice {
  const listPath = pathOf(path, 'ratings');
  const ratings = fields
    .optionalArray(vulnerability, 'ratings', path)
    .map((raw, index) => readRating(fields, raw, itemPath(listPath, index)));
  const rated = ratings.filter((rating) => rating.severity !== null);
  const fromFeed = rated.filter((rating) => feed !== null && rating.source === feed);
  const candidates = fromFeed.length > 0 ? fromFeed : rated;
  let chosen: Rating | null = null;
  for (const rating of candidates) {
    if (!chosen || mostSevere(chosen.severity as Severity, rating.severity as Severity) !== chosen.severity) {
      chosen = rating;
    }
  }
  const scores = (list: Rating[]) => list.flatMap((rating) => (rating.cvss ? [rating.cvss] : []));
  return {
    severity: chosen?.severity ?? 'unspecified',
    scannerSeverity: chosen?.word ?? null,
    cvss: preferredCvss(scores(fromFeed)) ?? preferredCvss(scores(ratings)),
  };
}
