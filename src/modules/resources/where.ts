/**
 * A WHERE clause built from optional filters with numbered parameters. Callers add SQL they
 * wrote themselves with `$` standing for the next parameter; values never reach the SQL text.
 *
 * @example
 *   const where = new Where('r.account_id = $', accountId);
 *   if (kinds.length) where.add('r.kind = any($::text[])', kinds);
 *   db.query(`select ... where ${where.sql} limit ${where.next(limit)}`, where.params);
 */
export class Where {
  readonly params: unknown[] = [];
  private readonly clauses: string[] = [];

  constructor(clause: string, value: unknown) {
    this.add(clause, value);
  }

  /** Adds `clause` with its one `$` bound to `value`. */
  add(clause: string, value: unknown): this {
    this.clauses.push(clause.replace('$', this.next(value)));
    return this;
  }

  /** Adds a clause without parameters. */
  addRaw(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  /** Binds a value and returns its placeholder (`$3`). */
  next(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /**
   * The number of clauses: a list whose WHERE holds only its account's clause (and its default
   * predicate) is unfiltered, and reads its kept total (modules/list-totals).
   */
  get size(): number {
    return this.clauses.length;
  }

  get sql(): string {
    return this.clauses.join(' and ');
  }
}
