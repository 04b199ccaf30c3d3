/**
 * A filter some lists keep their totals by (modules/list-totals): `cluster_id`, bound as a uuid, or
 * a text column's name (a resource's `kind`, a container's `image_repo`).
 */
export type KeptDimension = string;
const typeOf = (dimension: KeptDimension) => (dimension === 'cluster_id' ? 'uuid' : 'text');
const NO_KEYS: ReadonlySet<string> = new Set();

/**
 * A WHERE clause built from optional filters with numbered parameters. Callers add SQL they
 * wrote themselves with `$` standing for the next parameter; values never reach the SQL text.
 *
 * @example
 *   const where = new Where('r.account_id = $', accountId);
 *   if (kinds.length) where.addOneOf('r.kind', kinds, 'text');
 *   db.query(`select ... where ${where.sql} limit ${where.next(limit)}`, where.params);
 */
export class Where {
  readonly params: unknown[] = [];
  private readonly clauses: string[] = [];
  /** how many filters were added */
  private narrowings = 0;
  /** the values of the filters added on a kept dimension (addKept) */
  private readonly kept = new Map<KeptDimension, readonly string[]>();

  /** The placeholder of the list's owner, bound by the constructor (`$1`), for SQL naming it again. */
  readonly owner: string;

  /** `clause` scopes the list to its owner (`r.account_id = $`): it narrows nothing. */
  constructor(clause: string, value: unknown) {
    this.owner = this.next(value);
    this.clauses.push(clause.replace('$', this.owner));
  }

  /** Adds a filter `clause` with its one `$` bound to `value`. */
  add(clause: string, value: unknown): this {
    this.clauses.push(clause.replace('$', this.next(value)));
    this.narrowings++;
    return this;
  }

  /**
   * Adds a filter: `column` equals one of `values`. One value is written `column = $n`, several
   * `column = any($n::type[])`: the same rows, but PostgreSQL 15 reads an index on (account_id,
   * column, sort key, ...) in the sort's order only for a single value, and stops at the page's
   * last row; for `= any(...)` it reads every match and sorts them (docs/performance.md, "Fix 34").
   */
  addOneOf(column: string, values: readonly string[], type: 'text' | 'uuid'): this {
    if (values.length === 1) return this.add(`${column} = $::${type}`, values[0]);
    return this.add(`${column} = any($::${type}[])`, values);
  }

  /**
   * Adds a filter `column` is one of `values`, as addOneOf, on a dimension that some lists keep
   * their totals by (modules/list-totals): a cluster, a resource's kind, a container's image. A
   * list whose every filter is such may read its total there (`keptAlone`) rather than count the
   * rows they select.
   */
  addKept(dimension: KeptDimension, column: string, values: readonly string[]): this {
    this.addOneOf(column, values, typeOf(dimension));
    // The same dimension twice (two parameters naming clusters) is their intersection: counted.
    if (this.kept.has(dimension)) this.narrowings++;
    this.kept.set(dimension, values);
    return this;
  }

  /**
   * Adds a `filters` map (http/filters.ts) whose keys are the list's column names, under the
   * table's `alias` if it has one: `cluster_id` as a kept dimension (a uuid), the `keptKeys` the
   * list keeps its totals by as kept dimensions, every other key a text column.
   */
  addColumnFilters(
    filters: ReadonlyMap<string, readonly string[]>,
    alias = '',
    keptKeys: ReadonlySet<string> = NO_KEYS,
  ): this {
    const column = (key: string) => (alias ? `${alias}.${key}` : key);
    for (const [key, values] of filters) {
      if (key === 'cluster_id' || keptKeys.has(key)) this.addKept(key, column(key), values);
      else this.addOneOf(column(key), values, 'text');
    }
    return this;
  }

  /** Adds a filter clause without parameters. */
  addRaw(clause: string): this {
    this.clauses.push(clause);
    this.narrowings++;
    return this;
  }

  /**
   * Adds a clause that defines the list rather than filters it (the live versions of resources):
   * the list's kept total already counts only these rows.
   */
  addDefinition(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  /** Binds a value and returns its placeholder (`$3`). */
  next(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /**
   * Whether a filter was added: a list that is not filtered holds every row of its account and
   * reads its kept total (modules/list-totals) instead of counting.
   */
  get filtered(): boolean {
    return this.narrowings > 0;
  }

  /**
   * The values of each kept dimension (addKept) when those are the list's only filters, each
   * dimension once: empty for a list without filters. Undefined when any other filter was added.
   */
  get keptAlone(): ReadonlyMap<KeptDimension, readonly string[]> | undefined {
    return this.narrowings === this.kept.size ? this.kept : undefined;
  }

  get sql(): string {
    return this.clauses.join(' and ');
  }
}
