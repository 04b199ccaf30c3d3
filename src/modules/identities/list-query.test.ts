/** The #14 query grammar: lists, vocabularies, time bounds and sort. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../http/errors.js';
import { parseIdentityListQuery } from './list-query.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

function rejects(query: Record<string, string>, field: string, code: string) {
  assert.throws(
    () => parseIdentityListQuery(query, NOW),
    (error: unknown) =>
      error instanceof ApiError &&
      error.status === 400 &&
      error.validationDetails[0]?.field === field &&
      error.validationDetails[0]?.code === code,
    JSON.stringify(query),
  );
}

describe('parseIdentityListQuery', () => {
  test('nothing given: no filter, sorted by risk_score descending', () => {
    const { filters, sort } = parseIdentityListQuery({}, NOW);
    assert.deepEqual(filters, {
      resources: [],
      risks: [],
      usages: [],
      riskLevels: [],
      types: [],
      sources: [],
      actions: [],
      statuses: [],
    });
    assert.deepEqual(sort, { field: 'risk_score', direction: 'desc' });
  });

  test('comma lists are trimmed and de-duplicated; levels match in any case', () => {
    const { filters } = parseIdentityListQuery(
      {
        risk_levels: 'critical, HIGH,Critical',
        identity_types: 'k8s_user,k8s_group',
        statuses: 'open',
        usages: 'unused,used',
        risks: 'secrets_read,cluster_admin',
        resources: 'secrets,pods/exec,*',
        actions: 'get,,create',
        identity_sources: '0462ED3F-2CB0-4600-A07A-8793EC578084',
      },
      NOW,
    );
    assert.deepEqual(filters.riskLevels, ['Critical', 'High']);
    assert.deepEqual(filters.types, ['k8s_user', 'k8s_group']);
    assert.deepEqual(filters.statuses, ['open']);
    assert.deepEqual(filters.usages, ['unused', 'used']);
    assert.deepEqual(filters.risks, ['secrets_read', 'cluster_admin']);
    assert.deepEqual(filters.resources, ['secrets', 'pods/exec', '*']);
    assert.deepEqual(filters.actions, ['get', 'create']);
    assert.deepEqual(filters.sources, ['0462ed3f-2cb0-4600-a07a-8793ec578084']);
  });

  test('unknown vocabulary values and malformed cluster ids are 400s naming the parameter', () => {
    rejects({ risk_levels: 'Severe' }, 'risk_levels', 'invalid_value');
    rejects({ identity_types: 'k8s_robot' }, 'identity_types', 'invalid_value');
    rejects({ statuses: 'closed' }, 'statuses', 'invalid_value');
    rejects({ usages: 'sometimes' }, 'usages', 'invalid_value');
    rejects({ risks: 'secrets' }, 'risks', 'invalid_value');
    rejects({ identity_sources: 'prod' }, 'identity_sources', 'invalid_format');
  });

  test('time bounds: RFC 3339 and relative; a range ending before it starts is refused', () => {
    const { filters } = parseIdentityListQuery(
      {
        from: 'now-1d',
        to: '2026-03-01T11:00:00+01:00',
        from_last_used_at: 'now-2h',
        to_last_detected_at: 'now',
      },
      NOW,
    );
    assert.equal(filters.createdFrom?.toISOString(), '2026-02-28T12:00:00.000Z');
    assert.equal(filters.createdTo?.toISOString(), '2026-03-01T10:00:00.000Z');
    assert.equal(filters.lastUsedFrom?.toISOString(), '2026-03-01T10:00:00.000Z');
    assert.equal(filters.lastDetectedTo?.toISOString(), '2026-03-01T12:00:00.000Z');
    rejects({ from: 'yesterday' }, 'from', 'invalid_format');
    rejects({ from_last_used_at: '2026-02-30T00:00:00Z' }, 'from_last_used_at', 'invalid_format');
    rejects({ to_last_detected_at: 'now+1d' }, 'to_last_detected_at', 'invalid_format');
    rejects({ from: 'now', to: 'now-1h' }, 'from', 'out_of_range');
  });

  test('sort: field:asc|desc from the allow-list; a bare field sorts ascending', () => {
    assert.deepEqual(parseIdentityListQuery({ sort: 'name' }, NOW).sort, { field: 'name', direction: 'asc' });
    assert.deepEqual(parseIdentityListQuery({ sort: 'last_used_at:desc' }, NOW).sort, {
      field: 'last_used_at',
      direction: 'desc',
    });
    rejects({ sort: 'risk_level:desc' }, 'sort', 'invalid_value');
    rejects({ sort: 'name:up' }, 'sort', 'invalid_format');
  });
});
