/**
 * The statements one database session keeps prepared, by their SQL text, so that PostgreSQL
 * parses each once per session and may plan it once (docs/performance.md, "Fix 37").
 *
 * An unnamed statement is parsed, analysed and planned on every execution. For a list page on the
 * large benchmark account that planning (0.4 to 0.9 ms) cost as much as executing the page (0.5 to
 * 0.9 ms). A named statement is parsed once; after five executions PostgreSQL compares its generic
 * plan's estimated cost with the custom plans' and keeps the generic plan only when it is no
 * dearer (plan_cache_mode `auto`), so a statement whose plan depends on its values keeps being
 * planned for them.
 *
 * The most recently used `capacity` statements are kept; an older one is closed on the session,
 * as is any statement whose Parse went out in a pipeline that failed (it may or may not exist on
 * the server). Closing travels at the start of the session's next pipeline (`takeClosing`), where
 * nothing can skip it: closing a name the server does not have is not an error.
 *
 * @example
 *   const { name, parse } = session.use(sql); // parse: send a Parse with `name` first
 *   // ... on a failed pipeline: session.forget(namesParsedInIt)
 */
export class PreparedStatements {
  /** SQL text -> statement name, least recently used first (Map keeps insertion order) */
  private readonly names = new Map<string, string>();
  private closing: string[] = [];
  private sequence = 0;

  constructor(private readonly capacity: number) {}

  /**
   * The name `sql` runs under on this session, and whether it must be parsed first. A session of
   * capacity 0 keeps nothing: every statement is parsed unnamed.
   */
  use(sql: string): { name: string; parse: boolean } {
    if (this.capacity === 0) return { name: '', parse: true };
    const known = this.names.get(sql);
    if (known !== undefined) {
      this.names.delete(sql);
      this.names.set(sql, known);
      return { name: known, parse: false };
    }
    const name = `posture_${++this.sequence}`;
    this.names.set(sql, name);
    if (this.names.size > this.capacity) {
      const [oldestSql, oldestName] = this.names.entries().next().value as [string, string];
      this.names.delete(oldestSql);
      this.closing.push(oldestName);
    }
    return { name, parse: true };
  }

  /** Statements whose Parse went out in a pipeline that failed: parsed again under a new name. */
  forget(names: readonly string[]): void {
    if (names.length === 0) return;
    const forgotten = new Set(names);
    for (const [sql, name] of this.names) if (forgotten.has(name)) this.names.delete(sql);
    this.closing.push(...names);
  }

  /** The names to close before the session's next statements; each is returned once. */
  takeClosing(): string[] {
    const names = this.closing;
    this.closing = [];
    return names;
  }

  get size(): number {
    return this.names.size;
  }
}
