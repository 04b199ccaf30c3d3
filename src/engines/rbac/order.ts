/**
 * Deterministic ordering helpers. Outputs are sorted so that storage can diff runs and so that
 * the same cluster pushed in any order yields byte-identical identities; `localeCompare` is
 * avoided because its result depends on the machine's locale.
 */

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts a copy by the string keys, compared left to right. */
export function sortBy<T>(items: Iterable<T>, keys: (item: T) => readonly string[]): T[] {
  const decorated = [...items].map((item) => ({ item, key: keys(item) }));
  decorated.sort((x, y) => {
    for (let i = 0; i < Math.max(x.key.length, y.key.length); i++) {
      const order = compareStrings(x.key[i] ?? '', y.key[i] ?? '');
      if (order !== 0) return order;
    }
    return 0;
  });
  return decorated.map(({ item }) => item);
}

export function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareStrings);
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort(compareStrings)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const round2 = (value: number): number => Math.round(value * 100) / 100;
