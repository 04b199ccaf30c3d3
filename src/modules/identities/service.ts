/**
 * Identities of an account (#14-#18). Every call passes the account gate (viewer); an identity of
 * another account or tenant answers 404 like a missing one, because every query names the account.
 */
import type { Database } from '../../db/database.js';
import {
  buildIdentitiesReport,
  RISK_RULES_BY_TYPE,
  type RiskType,
  stableId,
} from '../../engines/rbac/index.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { isUuid } from '../../http/ids.js';
import { type PageRequest, pageList, pageListParts, pageToOffset } from '../../http/paging.js';
import type { RowBytesCache } from '../../http/row-bytes-cache.js';
import { searchPathFor } from '../../http/search.js';
import type { TextPart } from '../../http/text-parts-stream.js';
import { utf8Bytes } from '../../http/utf8-bytes.js';
import type { AccountService } from '../accounts/service.js';
import { hasCachedAccess, identityJsonParts } from './identity-json.js';
import { parseIdentityListQuery, type RawIdentityListQuery } from './list-query.js';
import {
  type ApiIdentity,
  filterLabel,
  rawRbacObjects,
  toApiIdentity,
  toApiReport,
  toApiRisk,
} from './mapping.js';
import * as repo from './repository.js';
import { risksJsonByIdentity } from './risk-json.js';
import { RISK_LEVEL_VALUES } from './schemas.js';

const identityNotFound = () => new ApiError('not_found', 'identity not found');

/** #15 keys, from the facet names of identity_filter_values. */
const OPTION_KEYS = {
  action: 'actions',
  identity_source: 'identity_sources',
  identity_type: 'identity_types',
  resource: 'resources',
  risk_level: 'risk_levels',
  risk: 'risk_types',
  status: 'statuses',
  usage: 'usages',
} as const;
type OptionKey = (typeof OPTION_KEYS)[keyof typeof OPTION_KEYS];
type Option = { label: string; value: string };

const byLabel = (a: Option, b: Option) =>
  a.label < b.label ? -1 : a.label > b.label ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
/** Levels read best from the worst down, like the report. */
const levelRank = (value: string) => -RISK_LEVEL_VALUES.indexOf(value as (typeof RISK_LEVEL_VALUES)[number]);

/** The response schema's serializer of one identity, for rows without the cached text. */
export type SerializeIdentity = (identity: ApiIdentity) => string;

/**
 * `texts` keeps identities' response bytes between pages, by the version of what each is made from
 * (repository.ts, TEXT_VERSION; docs/performance.md "Fix 32"); of 0 bytes, every page reads its
 * identities' texts.
 */
export function createIdentityService({
  db,
  accounts,
  texts,
}: {
  db: Database;
  accounts: AccountService;
  texts: RowBytesCache;
}) {
  /**
   * The API JSON of each row as text pieces, with its risks and raw objects read in one query
   * each: assembled from the cached text (identity-json.ts, with each risk's own text,
   * risk-json.ts), or for a row written before that text existed, mapped and serialized through
   * the response schema as before (one piece).
   */
  async function expand(accountId: string, rows: repo.IdentityRow[], serialize: SerializeIdentity) {
    const idsOf = (cached: boolean) =>
      rows.filter((row) => hasCachedAccess(row) === cached).map((row) => row.id);
    // Risks as text for the rows assembled from text; risk rows only for those serialized the old way.
    const [riskTexts, risks] = await Promise.all([
      repo.findRiskTextsOf(db, accountId, idsOf(true)),
      repo.findRisksOf(db, accountId, idsOf(false)),
    ]);
    const idsByCluster = new Map<string, string[]>();
    for (const row of rows) {
      const ids = idsByCluster.get(row.cluster_id) ?? [];
      ids.push(...row.raw_record_ids);
      idsByCluster.set(row.cluster_id, ids);
    }
    for (const [cluster, ids] of idsByCluster) idsByCluster.set(cluster, [...new Set(ids)]);
    const raw = await repo.findRawObjects(db, accountId, idsByCluster);
    const risksOf = new Map<string, repo.RiskRow[]>();
    for (const risk of risks) {
      const list = risksOf.get(risk.identity_id);
      if (list) list.push(risk);
      else risksOf.set(risk.identity_id, [risk]);
    }
    const risksJsonOf = risksJsonByIdentity(riskTexts, await olderRisks(accountId, riskTexts));
    return rows.map((row): string[] => {
      const cached = identityJsonParts(row, risksJsonOf.get(row.id) ?? '[]', raw);
      if (cached !== null) return cached;
      const { rbac_objects } = row;
      if (rbac_objects === null) throw new Error(`identity ${row.id} was read without its rbac_objects`);
      return [
        serialize(
          toApiIdentity({ ...row, rbac_objects }, risksOf.get(row.id) ?? [], rawRbacObjects(row, raw)),
        ),
      ];
    });
  }

  /** The rows of risks written before their text was cached (migration 0025), by `<identity id>/<risk id>`. */
  async function olderRisks(accountId: string, riskTexts: readonly repo.RiskTextRow[]) {
    const identities = new Set(
      riskTexts.filter((risk) => risk.head_json === null).map((risk) => risk.identity_id),
    );
    const older = new Map<string, repo.RiskRow>();
    if (identities.size === 0) return older;
    for (const risk of await repo.findRisksOf(db, accountId, [...identities]))
      older.set(`${risk.identity_id}/${risk.id}`, risk);
    return older;
  }

  /** A page's identities read with their texts, each as its text pieces. */
  async function readPage(accountId: string, query: repo.IdentityPageQuery, serialize: SerializeIdentity) {
    const { rows, total } = await repo.listIdentities(db, accountId, query);
    return { entries: await expand(accountId, rows, serialize), total };
  }

  /**
   * A page's identities from the bytes kept of them where their version is still the one read,
   * reading the texts of the others only. Their bytes are kept under the version read before them,
   * so a text is never older than the version that serves it.
   */
  async function cachedPage(
    accountId: string,
    query: repo.IdentityPageQuery,
    serialize: SerializeIdentity,
  ): Promise<{ entries: TextPart[]; total: number }> {
    const { rows: versions, total } = await repo.listIdentityVersions(db, accountId, query);
    const entries = versions.map(({ id, text_version }) => texts.get(accountId, id, text_version));
    const missing = versions.flatMap((version, index) => (entries[index] ? [] : [{ ...version, index }]));
    if (missing.length > 0) {
      const found = await repo.findIdentities(
        db,
        accountId,
        missing.map(({ id }) => id),
      );
      // Deleted between the two reads: the page is read again, whole, as without the kept bytes.
      if (found.length < missing.length) return readPage(accountId, query, serialize);
      const rows = new Map(found.map((row) => [row.id, row]));
      const read = await expand(
        accountId,
        missing.map(({ id }) => rows.get(id)!),
        serialize,
      );
      missing.forEach(({ id, text_version, index }, position) => {
        entries[index] = texts.keep(accountId, id, text_version, utf8Bytes(read[position]!));
      });
    }
    return { entries: entries as Buffer[], total };
  }

  async function requireIdentity(accountId: string, identityId: string) {
    const row = isUuid(identityId) ? await repo.findIdentity(db, accountId, identityId) : undefined;
    if (!row) throw identityNotFound();
    return row;
  }

  return {
    /**
     * #14 as JSON text in parts, the page envelope around each identity's kept bytes or text pieces
     * (pageList's fields): joined, they are the body. The route streams them one by one, an
     * identity read as pieces encoded when the socket asks for it, rather than joining a page of up
     * to several megabytes into one string (docs/performance.md, "Server memory").
     */
    async list(
      actor: Actor,
      accountId: string,
      query: RawIdentityListQuery & { page: PageRequest },
      serialize: SerializeIdentity,
    ): Promise<TextPart[]> {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const pageQuery = {
        ...parseIdentityListQuery(query),
        page: pageToOffset(query.page),
        searchPath: searchPathFor(db.engine),
      };
      const { entries: identities, total } = texts.enabled
        ? await cachedPage(account.id, pageQuery, serialize)
        : await readPage(account.id, pageQuery, serialize);
      return pageListParts(
        identities.map((identity) => [identity]),
        total,
        query.page,
      );
    },

    /** #16 as JSON text. */
    async get(actor: Actor, accountId: string, identityId: string, serialize: SerializeIdentity) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const row = await requireIdentity(account.id, identityId);
      const [identity] = await expand(account.id, [row], serialize);
      return identity!.join('');
    },

    async risks(actor: Actor, accountId: string, identityId: string, riskType: string, page: PageRequest) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const row = await requireIdentity(account.id, identityId);
      if (!RISK_RULES_BY_TYPE.has(riskType as RiskType)) throw new ApiError('not_found', 'no such risk type');
      const { rows, total } = await repo.listRisksOfType(
        db,
        account.id,
        row.id,
        riskType,
        pageToOffset(page),
      );
      return pageList(rows.map(toApiRisk), total, page);
    },

    async filterOptions(actor: Actor, accountId: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const options: Record<OptionKey, Map<string, Option>> = {
        actions: new Map(),
        identity_sources: new Map(),
        identity_types: new Map(),
        resources: new Map(),
        risk_levels: new Map(),
        risk_types: new Map(),
        statuses: new Map(),
        usages: new Map(),
      };
      for (const { facet, value, label } of await repo.findFilterValues(db, account.id)) {
        const key = OPTION_KEYS[facet as keyof typeof OPTION_KEYS];
        if (key) options[key].set(value, { label: filterLabel(facet, value, label), value });
      }
      const sorted = (key: OptionKey) => [...options[key].values()].sort(byLabel);
      return {
        actions: sorted('actions'),
        identity_sources: sorted('identity_sources'),
        identity_types: sorted('identity_types'),
        resources: sorted('resources'),
        risk_levels: [...options.risk_levels.values()].sort(
          (a, b) => levelRank(a.value) - levelRank(b.value),
        ),
        risk_types: sorted('risk_types'),
        statuses: sorted('statuses'),
        usages: sorted('usages'),
      };
    },

    /** The latest report; an account without any ingestion yet gets a zeroed one (not stored). */
    async latestReport(actor: Actor, accountId: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const row = await repo.findLatestReport(db, account.id);
      if (row) return toApiReport(row);
      const now = new Date();
      const { year, month, day, hour, ...body } = buildIdentitiesReport([], now);
      return toApiReport({
        id: stableId('identities-report', account.id, 'empty'),
        account_id: account.id,
        created_at: now,
        year,
        month,
        day,
        hour,
        body,
      });
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
