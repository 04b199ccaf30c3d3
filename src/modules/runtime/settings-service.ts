/**
 * Per-account runtime settings: the baseline learning window (time and event count) and the
 * trusted IP prefixes. Any viewer reads them; only an admin changes them. A change applies to what
 * is ingested afterwards: baselines already captured stay as they are, workload containers still
 * learning close their window by the new rule, and stored connections and observations keep the
 * trust they were given until they are seen again.
 */
import type { Database, Executor } from '../../db/database.js';
import {
  DEFAULT_LEARNING_WINDOW,
  type EngineOptions,
  parseCidr,
  type TrustedPrefix,
} from '../../engines/runtime/index.js';
import type { Actor } from '../../http/actor.js';
import { ApiError, type ValidationDetail } from '../../http/errors.js';
import { iso } from '../../http/ids.js';
import type { AccountService } from '../accounts/service.js';
import * as repo from './settings-repository.js';

export interface RuntimeSettings {
  learningWindowSeconds: number;
  learningWindowMaxEvents: number | null;
  trustedPrefixes: TrustedPrefix[];
  updatedAt: Date | null;
}

export const DEFAULT_RUNTIME_SETTINGS: RuntimeSettings = {
  learningWindowSeconds: DEFAULT_LEARNING_WINDOW.durationSeconds,
  learningWindowMaxEvents: DEFAULT_LEARNING_WINDOW.maxEvents,
  trustedPrefixes: [],
  updatedAt: null,
};

/** The settings of an account (its defaults when it never saved any), inside the caller's transaction. */
export async function loadRuntimeSettings(db: Executor, accountId: string): Promise<RuntimeSettings> {
  const row = await repo.findSettings(db, accountId);
  if (!row) return DEFAULT_RUNTIME_SETTINGS;
  return {
    learningWindowSeconds: row.learning_window_seconds,
    learningWindowMaxEvents: row.learning_window_max_events,
    trustedPrefixes: row.trusted_ip_prefixes,
    updatedAt: row.updated_at,
  };
}

export function engineOptionsOf(settings: RuntimeSettings): EngineOptions {
  return {
    window: { durationSeconds: settings.learningWindowSeconds, maxEvents: settings.learningWindowMaxEvents },
    trustedPrefixes: settings.trustedPrefixes,
  };
}

function toApiSettings(accountId: string, settings: RuntimeSettings) {
  return {
    account_id: accountId,
    learning_window_seconds: settings.learningWindowSeconds,
    learning_window_max_events: settings.learningWindowMaxEvents,
    trusted_ip_prefixes: settings.trustedPrefixes.map((prefix) => ({
      cidr: prefix.cidr,
      name: prefix.name,
      ...(prefix.description !== undefined ? { description: prefix.description } : {}),
    })),
    updated_at: iso(settings.updatedAt),
  };
}

export interface SettingsInput {
  learning_window_seconds: number;
  learning_window_max_events: number | null;
  trusted_ip_prefixes: { cidr: string; name: string; description?: string | undefined }[];
}

/** CIDRs must parse, and one prefix may not be listed twice (which name would win?). */
function validatePrefixes(prefixes: SettingsInput['trusted_ip_prefixes']): TrustedPrefix[] {
  const problems: ValidationDetail[] = [];
  const seen = new Set<string>();
  const cleaned = prefixes.map((prefix, index) => {
    const cidr = prefix.cidr.trim();
    const parsed = parseCidr(cidr);
    const field = `trusted_ip_prefixes[${index}].cidr`;
    if (!parsed) {
      problems.push({
        code: 'invalid_format',
        field,
        message: 'is not an IPv4 or IPv6 prefix',
        param: 'body',
      });
    } else {
      const identity = `${Buffer.from(parsed.bytes).toString('hex')}/${parsed.bits}`;
      if (seen.has(identity))
        problems.push({ code: 'invalid_value', field, message: 'is listed twice', param: 'body' });
      seen.add(identity);
    }
    return {
      cidr,
      name: prefix.name,
      ...(prefix.description !== undefined ? { description: prefix.description } : {}),
    };
  });
  if (problems.length > 0) throw ApiError.validation(problems);
  return cleaned;
}

export function createRuntimeSettingsService({ db, accounts }: { db: Database; accounts: AccountService }) {
  return {
    async get(actor: Actor, accountId: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      return toApiSettings(account.id, await loadRuntimeSettings(db, account.id));
    },

    async put(actor: Actor, accountId: string, input: SettingsInput) {
      const account = await accounts.requireAccount(actor, accountId, 'admin');
      const prefixes = validatePrefixes(input.trusted_ip_prefixes);
      const saved = await repo.saveSettings(
        db,
        account.id,
        {
          learning_window_seconds: input.learning_window_seconds,
          learning_window_max_events: input.learning_window_max_events,
          trusted_ip_prefixes: prefixes,
        },
        actor.userId,
      );
      return toApiSettings(account.id, {
        learningWindowSeconds: saved.learning_window_seconds,
        learningWindowMaxEvents: saved.learning_window_max_events,
        trustedPrefixes: saved.trusted_ip_prefixes,
        updatedAt: saved.updated_at,
      });
    },
  };
}

export type RuntimeSettingsService = ReturnType<typeof createRuntimeSettingsService>;
