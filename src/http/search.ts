/**
 * `q`: a case-insensitive substring search over an endpoint's documented text fields. The phrase
 * is matched literally: `%`, `_` and `\` in it are escaped before it reaches ILIKE.
 */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
