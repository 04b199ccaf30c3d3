/**
 * Where ingestion spends its time (PostgreSQL): pg_stat_activity of the benchmark database is
 * sampled every 250 ms from a connection of its own, and each non-idle backend counted by its
 * state and the start of its statement, under the current phase label. `idle in transaction`
 * means the server process holds the transaction while Node works (parsing, computing) between
 * two statements. The top entries per phase go into the result file.
 *
 * Under the load cases only PostgreSQL's own workers are counted (`background`: autovacuum, the
 * checkpointer's and walwriter's work shows in their own rows), so that what else ran while a case
 * was measured is not buried under the case's own statements.
 */
import pg from 'pg';

export interface ActivityProfile {
  [phase: string]: { samples: number; top: { count: number; state: string; query: string }[] };
}

export class ActivitySampler {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly samples = new Map<string, number>();
  private phase: string | null = null;
  private backgroundOnly = false;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  static async start(url: string): Promise<ActivitySampler> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const sampler = new ActivitySampler(client, new URL(url).pathname.slice(1));
    sampler.timer = setInterval(() => void sampler.sample(), 250);
    return sampler;
  }

  /**
   * Labels the following samples; null pauses sampling. `background` counts only the backends that
   * are not clients' (autovacuum workers, the checkpointer, ...), whichever database they serve.
   */
  label(phase: string | null, which: 'all' | 'background' = 'all'): void {
    this.phase = phase;
    this.backgroundOnly = which === 'background';
  }

  private async sample(): Promise<void> {
    const phase = this.phase;
    if (!phase || this.busy) return;
    const backgroundOnly = this.backgroundOnly;
    this.busy = true;
    try {
      const { rows } = await this.client.query<{ state: string; query: string }>(
        backgroundOnly
          ? `select coalesce(state, backend_type) as state,
                    left(regexp_replace(coalesce(nullif(query, ''), wait_event, ''), '\\s+', ' ', 'g'), 100) as query
               from pg_stat_activity
              where backend_type <> 'client backend' and coalesce(state, '') <> 'idle'
                and wait_event_type is distinct from 'Activity'`
          : `select state, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) as query
               from pg_stat_activity
              where datname = $1 and pid <> pg_backend_pid() and state <> 'idle'`,
        backgroundOnly ? [] : [this.database],
      );
      const counts = this.counts.get(phase) ?? new Map<string, number>();
      for (const row of rows) {
        const key = `${row.state}|${row.query}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      this.counts.set(phase, counts);
      this.samples.set(phase, (this.samples.get(phase) ?? 0) + 1);
    } finally {
      this.busy = false;
    }
  }

  async stop(): Promise<ActivityProfile> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.client.end();
    const profile: ActivityProfile = {};
    for (const [phase, counts] of this.counts) {
      const top = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([key, count]) => {
          const [state = '', query = ''] = key.split(/\|(.*)/s);
          return { count, state, query };
        });
      profile[phase] = { samples: this.samples.get(phase) ?? 0, top };
    }
    return profile;
  }
}
