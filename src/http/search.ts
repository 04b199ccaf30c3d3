/**
 * `q`: a case-insensitive substring search over an endpoint's documented text fields. The phrase
 * is matched literally: `%`, `_` and `\` in it are escaped before it reaches ILIKE, whose default
 * escape character is the backslash.
 *
 * @example
 *   containsPattern('50%_off') // '%50\\%\\_off%', used as `name ilike $1`
 */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
