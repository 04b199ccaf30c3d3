/**
 * Content negotiation on the `Accept` header (RFC 9110 12.5.1): the offered media type with the
 * highest quality wins, a more specific range taking precedence over a wildcard for the same
 * type, and the first offer wins a tie. No Accept header accepts anything.
 *
 * @example
 *   negotiate('text/csv;q=0.9, application/json', ['application/json', 'text/csv']) // 'application/json'
 *   negotiate('application/xml', ['application/json', 'text/csv']) // null: answer 406
 */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseRange(text: string): MediaRange | null {
  const [mediaType = '', ...parameters] = text.split(';').map((part) => part.trim());
  const [type, subtype] = mediaType.toLowerCase().split('/');
  if (!type || !subtype) return null;
  let q = 1;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
    if (name.toLowerCase() === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
  }
  return { type, subtype, q };
}

/** 2 for an exact match, 1 for `type/*`, 0 for `*\/*`, -1 when the range does not cover the type. */
function specificity(range: MediaRange, offered: string): number {
  const [type, subtype] = offered.split('/');
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === '*') return 1;
  if (range.type === '*' && range.subtype === '*') return 0;
  return -1;
}

export function negotiate<T extends string>(accept: string | undefined, offers: readonly T[]): T | null {
  if (accept === undefined || accept.trim() === '') return offers[0] ?? null;
  const ranges = accept
    .split(',')
    .map(parseRange)
    .filter((range): range is MediaRange => range !== null);
  let best: { offer: T; q: number } | null = null;
  for (const offer of offers) {
    let match: { q: number; specificity: number } | null = null;
    for (const range of ranges) {
      const level = specificity(range, offer);
      if (level >= 0 && (match === null || level > match.specificity))
        match = { q: range.q, specificity: level };
    }
    if (match && match.q > 0 && (best === null || match.q > best.q)) best = { offer, q: match.q };
  }
  return best?.offer ?? null;
}
