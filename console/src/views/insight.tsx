/**
 * One runtime insight (#6): the container and workload, the rule-based analysis (and the LLM's,
 * when configured) with its ATT&CK mapping, and the process tree of the ongoing activity with
 * drift marked, or the baseline it is compared with. The container links to its inventory row.
 */
import type { AnalysisRecord, RuntimeInsight } from '../api/types.js';
import { ErrorMessage } from '../components/error-message.js';
import { Fields } from '../components/fields.js';
import { PageHeader } from '../components/page-header.js';
import { ProcessTree } from '../components/process-tree.js';
import { SeverityBadge } from '../components/severity.js';
import { Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

function Analysis({ record, title }: { record: AnalysisRecord; title: string }) {
  return (
    <section className="card" aria-label={title}>
      <h2>
        {title} <SeverityBadge value={record.severity} />
      </h2>
      <p>{record.description}</p>
      {record.status === 'failed' && (
        <p className="notice notice-warning">The analysis failed: {record.status}.</p>
      )}
      <Fields
        items={[
          ['Suggested action', <code key="a">{record.action}</code>],
          ['Category', record.category],
          ['Triggered by', record.triggeredBy],
          ['Remediation', record.remediation],
          [
            'ATT&CK techniques',
            record.mitreAttackTechniques.length === 0
              ? ''
              : record.mitreAttackTechniques.map((t) => `${t.id} ${t.name}`).join('; '),
          ],
          ['Updated', <Time key="u" value={record.updatedAt} />],
        ]}
      />
    </section>
  );
}

export default function InsightView({ account, params }: ViewProps) {
  const { offers } = useConsole();
  const [query, setQuery] = useUrlQuery();
  const showBaseline = query.show === 'baseline';
  const id = params.insightId ?? '';
  const {
    data: insight,
    error,
    loading,
  } = useApi<RuntimeInsight>(accountPath(account, `/container_runtime_insights/${encodeURIComponent(id)}`));
  const meta = insight?.summary.container_meta;
  const kube = insight?.summary.kube_meta;

  return (
    <>
      <PageHeader
        title={
          meta && kube ? `Insight: ${meta.container_name} in ${kube.namespace}/${kube.pod_name}` : 'Insight'
        }
      >
        <Link to={accountPath(account, '/runtime/insights')}>All insights</Link>
      </PageHeader>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading the insight" />}
      {insight && meta && kube && (
        <>
          <Fields
            items={[
              ['Severity', <SeverityBadge key="s" value={insight.severity} />],
              ['State', `${insight.state}${insight.malicious ? ' · malicious' : ''}`],
              ['Image', <code key="i">{meta.container_image_name}</code>],
              [
                'Container id',
                offers('GET /accounts/{account_id}/inventory_containers') ? (
                  <Link
                    key="c"
                    to={accountPath(
                      account,
                      `/containers?filters=${encodeURIComponent(`container_id:${meta.container_id}`)}`,
                    )}
                  >
                    <code>{meta.container_id.slice(0, 12)}</code>
                  </Link>
                ) : (
                  <code key="c">{meta.container_id}</code>
                ),
              ],
              ['Node', kube.node_name],
              ['Baseline', insight.baselineCaptured ? 'captured' : 'still learning'],
              ['Raised', <Time key="r" value={insight.createdAt} />],
              ['Updated', <Time key="u" value={insight.updatedAt} />],
            ]}
          />
          {insight.analysis.map((record) => (
            <Analysis key={record.id} record={record} title="Analysis" />
          ))}
          {insight.llmAnalysis && <Analysis record={insight.llmAnalysis} title="LLM analysis" />}
          <section aria-labelledby="tree-title">
            <div className="raw-toolbar">
              <h2 id="tree-title">Process tree</h2>
              <fieldset className="segmented">
                <legend className="visually-hidden">Show</legend>
                <label>
                  <input
                    type="radio"
                    name="fingerprint"
                    checked={!showBaseline}
                    onChange={() => setQuery({ show: undefined }, { replace: true })}
                  />{' '}
                  Ongoing activity
                </label>
                <label>
                  <input
                    type="radio"
                    name="fingerprint"
                    checked={showBaseline}
                    onChange={() => setQuery({ show: 'baseline' }, { replace: true })}
                  />{' '}
                  Baseline
                </label>
              </fieldset>
            </div>
            <ProcessTree
              key={showBaseline ? 'baseline' : 'ongoing'}
              fingerprint={showBaseline ? insight.baseline : insight.ongoing}
              label={showBaseline ? 'Baseline process tree' : 'Ongoing process tree'}
            />
          </section>
        </>
      )}
    </>
  );
}
