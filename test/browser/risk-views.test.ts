/**
 * The console's risk views in Chromium, on the demo data (sample cluster, scans, feeds, runtime
 * stream): packages with their facets, the CVE report with its CSV download, identities with their
 * risks and access graph, runtime insights with the process tree, HTTP observations, baselines and
 * the overview's risk panels. Every value checked is read from the API at test time. Findings and
 * integrations are checked when the server offers them. Screenshots of failed steps: test-output/.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { CVE_COLUMNS } from '../../src/modules/vulnerabilities/cve-report-schemas.js';
import { type Chromium, openChromium, textOf, urlOf } from './browser.js';
import { type ConsoleFixture, startConsoleFixture } from './fixture.js';

const enabled = process.env.POSTURE_BROWSER_TESTS === '1';

describe('console risk views in Chromium', {
  skip: enabled ? false : 'browser tests run with npm run test:browser',
}, () => {
  let f: ConsoleFixture;
  let chrome: Chromium;
  let base: string;
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true });
  const cells = (page: Page, label: string) => page.locator(`tbody td[data-label="${label}"]`);

  before(async () => {
    f = await startConsoleFixture();
    base = `/accounts/${f.tenant.accountId}`;
    chrome = await openChromium(f.baseUrl);
    const page = chrome.page;
    await page.goto(`${f.baseUrl}/console${base}`);
    await page.getByLabel('Access key id').fill(f.tenant.admin.accessKeyId);
    await page.getByLabel('Secret key').fill(f.tenant.admin.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Overview').waitFor();
  });
  after(async () => {
    await chrome?.close();
    await f?.t.close();
  });

  test('the demo data is there (the views below have something to show)', async () => {
    assert.ok((await f.api(`${base}/inventory_packages?limit=1`)).body.total_count > 0);
    assert.ok((await f.api(`${base}/identities?page_size=1`)).body.total_count > 0);
    assert.ok((await f.api(`${base}/container_runtime_insights?limit=1`)).body.total_count > 0);
  });

  test('overview: packages by severity, riskiest identities and newest insights come from the API', () =>
    chrome.step('overview-risks', async (page) => {
      await nav(page, 'Overview').click();
      const chart = page.locator('.chart', { hasText: 'Packages with a vulnerability, by severity' });
      const critical = (await f.api(`${base}/inventory_packages?limit=1&filters=severity:critical`)).body;
      assert.ok(critical.total_count > 0);
      const row = chart.locator('.chart-row', { hasText: 'critical' });
      assert.equal(await textOf(row.locator('.chart-value'), (t) => t !== ''), String(critical.total_count));

      const top = (await f.api(`${base}/identities?page_size=5&sort=risk_score:desc&statuses=open`)).body
        .entries;
      const list = page.locator('section', { hasText: 'Riskiest identities' }).getByRole('link');
      assert.deepEqual(
        await list.allInnerTexts(),
        top.map((i: { name: string }) => i.name),
      );
      const insight = (await f.api(`${base}/container_runtime_insights?limit=1`)).body.entries[0];
      await page
        .locator('section', { hasText: 'Newest runtime insights' })
        .getByRole('link', { name: new RegExp(insight.summary.container_meta.container_name) })
        .waitFor();
    }));

  test('packages: a facet filter goes into the URL and the list is the API answer', () =>
    chrome.step('packages', async (page) => {
      await nav(page, 'Packages').click();
      await heading(page, 'Packages').waitFor();
      await page
        .getByLabel('Filter', { exact: true })
        .selectOption({ label: 'Has a vulnerability of severity' });
      await page.getByLabel('Filter value').selectOption('critical');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await urlOf(page, (url) => url.searchParams.get('filters') === 'severity:critical');
      const truth = (await f.api(`${base}/inventory_packages?filters=severity:critical`)).body;
      await textOf(page.locator('.pager-position'), (t) => t.endsWith(`of ${truth.total_count}`));
      assert.deepEqual(
        await cells(page, 'Package').allInnerTexts(),
        truth.entries.map((p: { name: string }) => p.name),
      );
    }));

  test('CVE report: filters and sort in the URL; the CSV download keeps the filters', () =>
    chrome.step('cve-report', async (page) => {
      await nav(page, 'CVE report').click();
      await heading(page, 'CVE report').waitFor();
      await page.getByLabel('Filter', { exact: true }).selectOption({ label: 'Severity' });
      await page.getByLabel('Filter value').selectOption('critical');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await urlOf(page, (url) => url.searchParams.get('filters') === 'severity:critical');
      await page.getByRole('button', { name: 'EPSS', exact: true }).click();
      await urlOf(page, (url) => url.searchParams.get('sort') === 'epss_score:asc');
      const rows = (
        await f.api(`${base}/reports/inventory_cves?filters=severity:critical&sort=epss_score:asc`)
      ).body;
      assert.ok(rows.length > 0);
      await textOf(page.locator('.pager-position'), (t) => t.includes(`${rows.length} item`));
      await textOf(cells(page, 'CVE').first(), (t) => t.startsWith(rows[0].cve_name));
      const severities = await cells(page, 'Severity').allInnerTexts();
      assert.ok(
        severities.every((s) => s.toLowerCase() === 'critical'),
        severities.join(),
      );

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download CSV' }).click(),
      ]);
      assert.match(download.suggestedFilename(), /^inventory-cves-[0-9a-f-]{36}-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path()) as string, 'utf8');
      const lines = csv.trimEnd().split('\r\n');
      assert.equal(lines[0], CVE_COLUMNS.join(','));
      assert.equal(lines.length - 1, rows.length, 'one line per row the filters keep');
      assert.ok(lines[1]?.startsWith(`${rows[0].cve_name},critical,`), lines[1]);
      await page.getByText(/Downloaded inventory-cves-/).waitFor();
    }));

  test('identities: a risk-level filter, then one identity with its risks and access graph', () =>
    chrome.step('identities', async (page) => {
      await nav(page, 'Identities').click();
      await heading(page, 'Identities').waitFor();
      await page.getByLabel('Risk level').selectOption('Critical');
      await page.getByRole('button', { name: 'Apply' }).click();
      await urlOf(page, (url) => url.searchParams.get('risk_levels') === 'Critical');
      const truth = (await f.api(`${base}/identities?risk_levels=Critical`)).body;
      await textOf(page.locator('.pager-position'), (t) => t.includes(`${truth.total_count} item`));
      assert.deepEqual(
        await cells(page, 'Identity').allInnerTexts(),
        truth.entries.map((i: { name: string }) => i.name),
      );

      // the riskiest service account: its bindings and roles are in the graph
      const sa = truth.entries.find((i: { type: string }) => i.type === 'k8s_service_account');
      assert.ok(sa, 'a critical service account in the demo');
      await cells(page, 'Identity').getByRole('link', { name: sa.name, exact: true }).click();
      await heading(page, `Service account ${sa.name}`).waitFor();
      const risk = sa.risks.find((r: { deleted_at: string | null }) => r.deleted_at === null);
      await page.getByRole('region', { name: 'Risks' }).getByText(risk.name).first().waitFor();
      const graph = page.getByRole('list', { name: 'Access graph' });
      const binding = sa.rbac_objects.graph.nodes.find(
        (n: { type: string }) => n.type === 'cluster_role_binding' || n.type === 'role_binding',
      );
      await graph.getByText(binding.properties.name, { exact: false }).first().waitFor();
      const role = sa.rbac_objects.graph.nodes.find(
        (n: { type: string; properties: { missing?: boolean } }) =>
          (n.type === 'cluster_role' || n.type === 'role') && !n.properties.missing,
      );
      const roleLabel = `${role.properties.kind} ${role.properties.namespace ? `${role.properties.namespace}/` : ''}${role.properties.name}`;
      // the list item of the role itself (the items around it contain its label too)
      const roleItem = graph
        .locator('li.graph-node > strong', { hasText: roleLabel })
        .first()
        .locator('xpath=..');
      await roleItem.locator('> details > summary').click();
      const segment = role.type === 'cluster_role' ? 'clusterroles' : 'roles';
      const record = (await f.api(`${base}/resources/rbac/${segment}/${role.properties.uid}`)).body;
      await roleItem
        .getByRole('list', { name: /^Rules of / })
        .first()
        .getByText(record.rules[0].title)
        .first()
        .waitFor();
    }));

  test('runtime insight: the process tree marks drift with a word, not only a colour', () =>
    chrome.step('insight', async (page) => {
      const insight = (await f.api(`${base}/container_runtime_insights?limit=1`)).body.entries[0];
      await nav(page, 'Insights').click();
      await heading(page, 'Runtime insights').waitFor();
      await cells(page, 'Container').getByRole('link').first().click();
      await heading(page, /^Insight: /).waitFor();
      await urlOf(page, (url) => url.pathname.endsWith(`/runtime/insights/${insight.id}`));
      const tree = page.getByRole('region', { name: 'Ongoing process tree' });
      const markers = tree.locator('.drift-marker');
      await markers.first().waitFor();
      assert.equal(await markers.first().textContent(), 'drift'); // the word itself, whatever the CSS case
      const detail = (await f.api(`${base}/container_runtime_insights/${insight.id}`)).body;
      const driftedComms: string[] = [];
      const visit = (p: { drift: boolean; programs: { comm: string }[]; children: unknown[] }) => {
        if (p.drift && p.programs[0]) driftedComms.push(p.programs[0].comm);
        for (const c of p.children) visit(c as typeof p);
      };
      for (const c of detail.ongoing.containers) for (const p of c.processes) visit(p);
      assert.ok(driftedComms.length > 0);
      await tree
        .locator('.process-drift > .process-line', { hasText: driftedComms[0] as string })
        .first()
        .waitFor();
      await page.getByLabel('Baseline', { exact: true }).check();
      await page.getByRole('region', { name: 'Baseline process tree' }).waitFor();
      assert.equal(await page.locator('.drift-marker').count(), 0, 'a baseline never drifts');
    }));

  test('HTTP observations: personal-data labels and trusted destinations', () =>
    chrome.step('http', async (page) => {
      await nav(page, 'HTTP observations').click();
      await heading(page, 'HTTP observations').waitFor();
      await page.getByLabel('Filter', { exact: true }).selectOption({ label: 'Personal data' });
      await page.getByLabel('Filter value').selectOption('true');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await urlOf(page, (url) => url.searchParams.get('filters') === 'has_pii:true');
      const truth = (await f.api(`${base}/container_runtime_insights/http_requests?filters=has_pii:true`))
        .body;
      assert.ok(truth.total_count > 0);
      await textOf(page.locator('.pager-position'), (t) => t.endsWith(`of ${truth.total_count}`));
      const labels = await cells(page, 'Personal data').allInnerTexts();
      assert.equal(labels.length, truth.total_count);
      const first = truth.entries[0];
      for (const label of first.pii_labels)
        assert.ok(labels[0]?.includes(label.replaceAll('_', ' ')), labels[0]);
      const trust = await cells(page, 'Destination').allInnerTexts();
      truth.entries.forEach((o: { trusted_ip: boolean; trusted_ip_prefix: string }, index: number) => {
        assert.equal(trust[index], o.trusted_ip ? `trusted ${o.trusted_ip_prefix}` : 'not trusted');
      });
    }));

  test('baselines: each shows its process tree on demand', () =>
    chrome.step('baselines', async (page) => {
      const truth = (await f.api(`${base}/container_runtime_latest_baseline_fingerprints`)).body;
      await nav(page, 'Baselines').click();
      await heading(page, 'Baselines').waitFor();
      await textOf(page.locator('.pager-position'), (t) => t.includes(`${truth.total_count} item`));
      const first = truth.entries[0];
      await page.getByRole('button', { name: `Show processes of ${first.workload_name}` }).click();
      const tree = page.getByRole('region', { name: 'Baseline process tree' });
      const comm = first.fingerprint.containers[0].processes[0].programs[0].comm;
      await tree.locator('.process-command', { hasText: comm }).first().waitFor();
    }));

  test('findings (when served): groups from the API; an editor changes a status', () =>
    chrome.step('findings', async (page) => {
      if (!f.offers('GET /accounts/{account_id}/unified_findings/groups')) return;
      const groups = (await f.api(`${base}/unified_findings/groups?limit=100`)).body;
      await nav(page, 'Findings').click();
      await heading(page, 'Findings').waitFor();
      if (groups.length === 0) {
        await page.getByText('No finding group matches.').waitFor();
        return;
      }
      await textOf(page.locator('.pager-position'), (t) => t.startsWith(`${groups.length} group`));
      await cells(page, 'Finding').getByRole('link', { name: groups[0].rule_title }).first().click();
      await heading(page, groups[0].rule_title).waitFor();
      if (!f.offers('PUT /accounts/{account_id}/unified_findings/groups/{group_id}/status')) return;
      const next = groups[0].status === 'ignored' ? 'open' : 'ignored';
      await page.getByLabel('Status', { exact: true }).selectOption(next);
      await page.getByRole('button', { name: 'Change status' }).click();
      await page.getByText(`Status set to ${next}.`).waitFor();
    }));

  test('integrations (when served): the catalogue; an admin adds one (secret never shown) and deletes it', () =>
    chrome.step('integrations', async (page) => {
      if (!f.offers('GET /tenants/{tenant_id}/integrations/providers')) return;
      if (!f.offers('GET /tenants/{tenant_id}/integrations/external')) return;
      const tenant = `/tenants/${f.tenant.tenantId}/integrations`;
      const providers = (await f.api(`${tenant}/providers?limit=1000`)).body;
      await nav(page, 'Integrations').click();
      await heading(page, 'Integrations').waitFor();
      const catalogue = page.getByRole('region', { name: 'Providers' });
      await textOf(catalogue.locator('tbody tr td[data-label="Type"]').last(), (t) => t !== '');
      assert.deepEqual(
        await catalogue.locator('tbody td[data-label="Type"]').allInnerTexts(),
        providers.entries.map((p: { type: string }) => p.type),
      );
      if (!f.offers('POST /tenants/{tenant_id}/integrations/external')) return;

      await page.getByRole('button', { name: 'Add an integration' }).click();
      await page.getByLabel('Provider', { exact: true }).selectOption({ label: 'Mock SIEM' });
      await page.getByLabel('Name', { exact: true }).fill('browser-siem');
      await page.getByLabel('Index', { exact: true }).fill('posture-findings');
      await page.getByLabel('API key', { exact: true }).fill('s3cret-browser-key');
      await page.getByLabel('Minimum severity (optional)').selectOption('high');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByText('Integration browser-siem added.').waitFor();
      const configured = page.getByRole('region', { name: 'Configured' });
      await configured.getByRole('cell', { name: 'browser-siem', exact: true }).waitFor();
      const stored = (await f.api(`${tenant}/external`)).body.entries;
      assert.deepEqual(
        stored.map((i: { name: string; type: string }) => `${i.name}:${i.type}`),
        ['browser-siem:mock-siem'],
      );
      assert.equal(stored[0].config.min_severity, 'high');
      assert.equal(await page.getByText('s3cret-browser-key').count(), 0, 'the secret is not on the page');

      if (!f.offers('DELETE /tenants/{tenant_id}/integrations/external/{integration_id}')) return;
      await page.getByRole('button', { name: 'Delete browser-siem' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete this integration?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await f.api(`${tenant}/external`)).body.total_count, 1, 'cancel deletes nothing');
      await page.getByRole('button', { name: 'Delete browser-siem' }).click();
      await dialog.getByRole('button', { name: 'Delete integration' }).click();
      await page.getByText('No integration is configured.').waitFor();
      assert.equal((await f.api(`${tenant}/external`)).body.total_count, 0);
    }));

  test('narrow screen: the CVE report reads as cards', () =>
    chrome.step('narrow-cves', async (page) => {
      await page.setViewportSize({ width: 390, height: 800 });
      try {
        await page.goto(`${f.baseUrl}/console${base}/cves?filters=severity:critical`);
        await heading(page, 'CVE report').waitFor();
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        assert.ok(width <= 390, `no sideways scrolling of the page (${width}px)`);
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    }));

  test('a viewer sees a finding group without the status control (last: it signs the admin out)', () =>
    chrome.step('findings-viewer', async (page) => {
      if (!f.offers('GET /accounts/{account_id}/unified_findings/groups/{group_id}')) return;
      const groups = (await f.api(`${base}/unified_findings/groups?limit=1`)).body;
      if (groups.length === 0) return;
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      await page.getByLabel('Access key id').fill(f.viewer.accessKeyId);
      await page.getByLabel('Secret key').fill(f.viewer.secretKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor(); // back on the page signed out from
      await page.goto(`${f.baseUrl}/console${base}/findings/${groups[0].id}`);
      await heading(page, groups[0].rule_title).waitFor();
      await page.getByText('Changing the status needs the editor role.').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Change status' }).count(), 0);
    }));

  test('no request left the origin, no CSP violation, no page error', () => {
    assert.deepEqual(chrome.foreignRequests, []);
    assert.deepEqual(chrome.pageProblems, []);
  });
});
