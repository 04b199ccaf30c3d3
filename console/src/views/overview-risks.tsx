/**
 * The risk half of the overview: packages by the severity of their vulnerabilities, known-exploited
 * CVEs in use, identities by risk level and the riskiest ones, the newest runtime insights and
 * finding groups. Each part is loaded only when the server offers its operation, with small calls
 * (totals, `limit=5`) rather than whole reports.
 */
import { api } from '../api/client.js';
import type {
  Account,
  CveRow,
  FindingGroup,
  IdentitiesReport,
  Identity,
  OffsetList,
  PageList,
  RuntimeInsightSummary,
} from '../api/types.js';
import { type Bar, BarChart } from '../components/bar-chart.js';
import { RISK_LEVELS, SEVERITIES, SeverityBadge } from '../components/severity.js';
import { Time } from '../components/time.js';
import { IDENTITY_TYPE_LABELS } from '../labels.js';
import { accountPath, findingGroupPath, identityPath, insightPath } from '../paths.js';
import { Link } from '../router.js';

export interface RiskOverview {
  packagesBySeverity: Bar[];
  exploitedInUse: number | null;
  identitiesByLevel: Bar[];
  topIdentities: Identity[] | null;
  insights: RuntimeInsightSummary[] | null;
  findingGroups: FindingGroup[] | null;
}

const TOP = 5;

export async function loadRiskOverview(
  account: Account,
  offers: (operation: string) => boolean,
  signal: AbortSignal,
): Promise<RiskOverview> {
  const base = accountPath(account);
  const get = <T,>(path: string, query: Record<string, string | number> = {}) =>
    api<T>('GET', path, { query, signal });
  const risks: RiskOverview = {
    packagesBySeverity: [],
    exploitedInUse: null,
    identitiesByLevel: [],
    topIdentities: null,
    insights: null,
    findingGroups: null,
  };
  const tasks: Promise<void>[] = [];
  if (offers('GET /accounts/{account_id}/inventory_packages')) {
    tasks.push(
      Promise.all(
        SEVERITIES.slice(0, 4).map(async (severity) => {
          const filter = `severity:${severity}`;
          const list = await get<OffsetList<unknown>>(`${base}/inventory_packages`, {
            limit: 1,
            filters: filter,
          });
          return {
            label: severity,
            value: list.total_count,
            to: `${base}/packages?filters=${encodeURIComponent(filter)}`,
          };
        }),
      ).then((bars) => {
        risks.packagesBySeverity = bars;
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/reports/inventory_cves')) {
    tasks.push(
      get<CveRow[]>(`${base}/reports/inventory_cves`, {
        filters: 'is_known_exploited:true,in_use:true',
      }).then((rows) => {
        risks.exploitedInUse = new Set(rows.map((row) => row.cve_name)).size;
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/identities/reports/latest')) {
    tasks.push(
      get<IdentitiesReport>(`${base}/identities/reports/latest`).then((report) => {
        risks.identitiesByLevel = RISK_LEVELS.filter((level) => level !== 'Unspecified').map((level) => ({
          label: level,
          value: report.identity_counts_per_level[level] ?? 0,
          to: `${base}/identities?risk_levels=${level}`,
        }));
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/identities')) {
    tasks.push(
      get<PageList<Identity>>(`${base}/identities`, {
        page_size: TOP,
        sort: 'risk_score:desc',
        statuses: 'open',
      }).then((list) => {
        risks.topIdentities = list.entries;
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/container_runtime_insights')) {
    tasks.push(
      get<OffsetList<RuntimeInsightSummary>>(`${base}/container_runtime_insights`, {
        limit: TOP,
        sort: 'updated_at:desc',
      }).then((list) => {
        risks.insights = list.entries;
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/unified_findings/groups')) {
    tasks.push(
      get<FindingGroup[]>(`${base}/unified_findings/groups`, { filters: 'status:open', limit: 100 }).then(
        (groups) => {
          risks.findingGroups = [...groups]
            .sort((a, b) => b.last_seen.localeCompare(a.last_seen))
            .slice(0, TOP);
        },
      ),
    );
  }
  await Promise.all(tasks);
  return risks;
}

export function RiskPanels({ account, risks }: { account: Account; risks: RiskOverview }) {
  return (
    <div className="overview-grid">
      {risks.packagesBySeverity.length > 0 && (
        <BarChart title="Packages with a vulnerability, by severity" bars={risks.packagesBySeverity} />
      )}
      {risks.identitiesByLevel.length > 0 && (
        <BarChart title="Identities by risk level" bars={risks.identitiesByLevel} />
      )}
      {risks.exploitedInUse !== null && (
        <section className="card" aria-labelledby="kev-title">
          <h2 id="kev-title">Known-exploited CVEs in use</h2>
          <p className="tile-value">{risks.exploitedInUse}</p>
          <Link
            to={`${accountPath(account, '/cves')}?filters=${encodeURIComponent('is_known_exploited:true,in_use:true')}`}
          >
            See them in the CVE report
          </Link>
        </section>
      )}
      {risks.topIdentities && (
        <section className="card" aria-labelledby="top-identities-title">
          <h2 id="top-identities-title">Riskiest identities</h2>
          {risks.topIdentities.length === 0 ? (
            <p className="empty">No identity with an open risk.</p>
          ) : (
            <ul className="top-list">
              {risks.topIdentities.map((identity) => (
                <li key={identity.id}>
                  <span>
                    <Link to={identityPath(account, identity.id)}>{identity.name}</Link>{' '}
                    <span className="muted">{IDENTITY_TYPE_LABELS[identity.type] ?? identity.type}</span>
                  </span>
                  <span>
                    <SeverityBadge value={identity.risk_level} /> {identity.risk_score}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {risks.insights && (
        <section className="card" aria-labelledby="new-insights-title">
          <h2 id="new-insights-title">Newest runtime insights</h2>
          {risks.insights.length === 0 ? (
            <p className="empty">No runtime insight: nothing drifted from its baseline.</p>
          ) : (
            <ul className="top-list">
              {risks.insights.map((insight) => (
                <li key={insight.id}>
                  <Link to={insightPath(account, insight.id)}>
                    {insight.summary.container_meta.container_name} in {insight.summary.kube_meta.namespace}
                  </Link>
                  <span>
                    <SeverityBadge value={insight.severity} /> <Time value={insight.updatedAt} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {risks.findingGroups && (
        <section className="card" aria-labelledby="new-findings-title">
          <h2 id="new-findings-title">Newest open findings</h2>
          {risks.findingGroups.length === 0 ? (
            <p className="empty">No open finding.</p>
          ) : (
            <ul className="top-list">
              {risks.findingGroups.map((group) => (
                <li key={group.id}>
                  <span>
                    <Link to={findingGroupPath(account, group.id)}>{group.rule_title}</Link>{' '}
                    <span className="muted">
                      {group.source_kind} {group.source_name}
                    </span>
                  </span>
                  <span>
                    <SeverityBadge value={group.severity} /> <Time value={group.last_seen} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
