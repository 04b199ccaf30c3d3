/** SQL of runtime_settings: one row per account, absent while the defaults apply. */
import type { Executor } from '../../db/database.js';
import type { TrustedPrefix } from '../../engines/runtime/index.js';

export interface SettingsRow {
  learning_window_seconds: number;
  learning_window_max_events: number | null;
  trusted_ip_prefixes: TrustedPrefix[];
  updated_at: Date;
}

export async function findSettings(db: Executor, accountId: string): Promise<SettingsRow | undefined> {
  const { rows } = await db.query<SettingsRow>(
    `select learning_window_seconds, learning_window_max_events, trusted_ip_prefixes, updated_at
       from runtime_settings where account_id = $1`,
    [accountId],
  );
  const row = rows[0];
  if (!row) return undefined;
  // jsonb comes back parsed from both engines; text would not.
  const prefixes = row.trusted_ip_prefixes as unknown;
  return {
    ...row,
    trusted_ip_prefixes: (typeof prefixes === 'string' ? JSON.parse(prefixes) : prefixes) as TrustedPrefix[],
  };
}

export async function saveSettings(
  db: Executor,
  accountId: string,
  settings: Omit<SettingsRow, 'updated_at'>,
  updatedBy: string,
): Promise<SettingsRow> {
  const { rows } = await db.query<SettingsRow>(
    `insert into runtime_settings (account_id, learning_window_seconds, learning_window_max_events,
       trusted_ip_prefixes, updated_at, updated_by)
     values ($1, $2, $3, $4::text::jsonb, now(), $5)
     on conflict (account_id) do update set
       learning_window_seconds = excluded.learning_window_seconds,
       learning_window_max_events = excluded.learning_window_max_events,
       trusted_ip_prefixes = excluded.trusted_ip_prefixes,
       updated_at = excluded.updated_at,
       updated_by = excluded.updated_by
     returning updated_at`,
    [
      accountId,
      settings.learning_window_seconds,
      settings.learning_window_max_events,
      JSON.stringify(settings.trusted_ip_prefixes),
      updatedBy,
    ],
  );
  return { ...settings, updated_at: rows[0]!.updated_at };
}
