/**
 * The web console in Debian's Chromium, against the real app and database: sign in, every view on
 * the sample cluster (each number and row checked against the API), create and revoke a key,
 * change a role, an expired session, sign out. Run with `npm run test:browser` (not part of
 * `npm test`, which runs where no Chromium exists). Screenshots of failed steps: test-output/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { announceSessionChange } from '../../src/modules/auth/revocations.js';
import { hashToken } from '../../src/security/secrets.js';
import { type Chromium, openChromium, textOf, urlOf } from './browser.js';
import { type ConsoleFixture, startConsoleFixture } from './fixture.js';

const enabled = process.env.POSTURE_BROWSER_TESTS === '1';

describe('web console in Chromium', {
  skip: enabled ? false : 'browser tests run with npm run test:browser',
}, () => {
  let f: ConsoleFixture;
  let chrome: Chromium;
  const view = (path: string) => `${f.baseUrl}/console/accounts/${f.tenant.accountId}${path}`;
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true });

  async function signIn(page: Page, secret = f.tenant.admin.secretKey) {
    await page.getByLabel('Access key id').fill(f.tenant.admin.accessKeyId);
    await page.getByLabel('Secret key').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  before(async () => {
    f = await startConsoleFixture();
    chrome = await openChromium(f.baseUrl);
  });
  after(async () => {
    await chrome?.close();
    await f?.t.close();
  });

  test('sign-in: a first visit asks for a key; the session is an HttpOnly, SameSite=Strict cookie', () =>
    chrome.step('sign-in', async (page) => {
      await page.goto(view('/clusters'));
      await heading(page, 'Sign in to Posture').waitFor();
      await urlOf(page, (url) => url.pathname === '/console/sign-in' && url.searchParams.has('next'));

      await signIn(page, 'psk_wrong');
      const refusal = await textOf(page.getByRole('alert'), (text) => text.includes('Sign-in refused'));
      assert.match(refusal, /invalid_credentials/);
      assert.match(refusal, /request id [0-9a-f-]{36}/);

      await signIn(page);
      await heading(page, 'Clusters').waitFor(); // back where the person was going
      const cookie = (await chrome.context.cookies()).find((c) => c.name === 'ory_kratos_session');
      assert.ok(cookie, 'session cookie set');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      assert.equal(cookie.path, '/');
      assert.ok(
        !(await page.evaluate<string>('document.cookie')).includes(cookie.value),
        'scripts cannot read it',
      );
    }));

  test('overview: each tile is the API total, with charts of the sample cluster', () =>
    chrome.step('overview', async (page) => {
      await nav(page, 'Overview').click();
      await heading(page, 'Overview').waitFor();
      const tile = (label: string) => page.locator('.tile', { hasText: label }).locator('.tile-value');
      const base = `/accounts/${f.tenant.accountId}`;
      const expected: [string, number][] = [
        ['Clusters', (await f.api(`${base}/clusters?page_size=1`)).body.total_count],
        ['Live resources', (await f.api(`${base}/resources?page_size=1`)).body.total_count],
        ['Containers', (await f.api(`${base}/inventory_containers?limit=1`)).body.total_count],
        ['Registries', (await f.api(`${base}/registries`)).body.length],
        ['Members', (await f.api(`${base}/users?limit=1`)).body.total_count],
      ];
      for (const [label, count] of expected) {
        assert.equal(await textOf(tile(label), (text) => text !== ''), String(count), label);
      }
      if (f.cluster) {
        assert.ok(expected[1]![1] > 0 && expected[2]![1] > 0, 'the sample cluster was ingested');
        await page.getByText('Live resources by kind').waitFor();
        await page
          .locator('.chart', { hasText: 'Containers by cluster' })
          .getByText(f.cluster.name)
          .waitFor();
      }
      if (process.env.POSTURE_UPDATE_SCREENSHOT === '1') {
        await page.screenshot({ path: new URL('../../docs/console-overview.png', import.meta.url).pathname });
      }
    }));

  test('clusters: the search is part of the URL', () =>
    chrome.step('clusters', async (page) => {
      if (!f.cluster) return;
      await nav(page, 'Clusters').click();
      await page.getByRole('link', { name: f.cluster.name }).waitFor();
      await page.getByLabel('Name contains').fill('no-such-cluster');
      await page.getByLabel('Name contains').press('Enter');
      await page.getByText('No cluster matches this search.').waitFor();
      await urlOf(page, (url) => url.searchParams.get('q') === 'no-such-cluster');
      await page.goBack();
      await page.getByRole('link', { name: f.cluster.name }).waitFor();

      // A tenant-level key switches accounts; the view stays the same.
      await page.getByLabel('Account', { exact: true }).selectOption({ label: 'staging' });
      await page.getByText('No cluster is registered in this account yet.').waitFor();
      await urlOf(page, (url) => /^\/console\/accounts\/[0-9a-f-]{36}\/clusters$/.test(url.pathname));
      assert.ok(!page.url().includes(f.tenant.accountId));
      await page.getByLabel('Account', { exact: true }).selectOption({ label: 'main' });
      await page.getByRole('link', { name: f.cluster.name }).waitFor();
    }));

  test('resources: kind filter and sort map to the API; the raw object is decoded', () =>
    chrome.step('resources', async (page) => {
      if (!f.cluster) return;
      await nav(page, 'Resources').click();
      await page.getByLabel('Kinds').fill('Deployment');
      await page.getByRole('button', { name: 'Apply' }).click();
      await urlOf(page, (url) => url.searchParams.get('resource_types') === 'Deployment');
      const truth = (
        await f.api(`/accounts/${f.tenant.accountId}/resources?resource_types=Deployment&sort=name:desc`)
      ).body;
      await textOf(page.locator('.pager-position'), (text) => text.includes(`${truth.total_count} items`));

      await page.getByRole('button', { name: 'Name', exact: true }).click(); // name:asc is the default: now desc
      await urlOf(page, (url) => url.searchParams.get('sort') === 'name:desc');
      const first = truth.entries[0];
      await textOf(page.locator('tbody tr td[data-label="Name"]'), (text) => text === first.name);
      const kinds = await page.locator('tbody td[data-label="Kind"]').allInnerTexts();
      assert.ok(kinds.length > 0 && kinds.every((kind) => kind === 'Deployment'), kinds.join());

      await page.locator('tbody td[data-label="Name"] a').first().click();
      await heading(page, `Deployment ${first.name}`).waitFor();
      await page.getByRole('group', { name: 'Show as' }).waitFor();
      await page.getByLabel('JSON').check();
      const raw = await textOf(page.getByLabel('Raw object as JSON'), (text) =>
        text.includes('"kind": "Deployment"'),
      );
      assert.ok(raw.includes(`"name": "${first.name}"`));
    }));

  test('containers: search and filters are shareable links', () =>
    chrome.step('containers', async (page) => {
      if (!f.cluster) return;
      await nav(page, 'Containers').click();
      await page.getByRole('searchbox', { name: 'Search' }).fill('nginx');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await urlOf(page, (url) => url.searchParams.get('q') === 'nginx');
      await page.getByLabel('Filter', { exact: true }).selectOption('owner_namespace');
      await page.getByLabel('Filter value').fill('storefront');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await urlOf(page, (url) => url.searchParams.get('filters') === 'owner_namespace:storefront');

      await page.reload(); // the URL alone restores the view
      await page.getByRole('button', { name: 'Remove filter owner_namespace: storefront' }).waitFor();
      const truth = (
        await f.api(
          `/accounts/${f.tenant.accountId}/inventory_containers?q=nginx&filters=owner_namespace:storefront`,
        )
      ).body;
      assert.ok(truth.total_count > 0);
      await textOf(page.locator('.pager-position'), (text) => text.endsWith(`of ${truth.total_count}`));
      const images = await page.locator('tbody td[data-label="Image"]').allInnerTexts();
      assert.equal(images.length, truth.total_count);
      assert.ok(
        images.every((image) => image.includes('nginx')),
        images.join(),
      );
    }));

  test('registries: add one; a refused one shows the field and the request id', () =>
    chrome.step('registries', async (page) => {
      await nav(page, 'Registries').click();
      await page.getByText('No registry is configured').waitFor();
      await page.getByRole('button', { name: 'Add a registry' }).click();
      await page.getByLabel('Type').selectOption('cloudA');
      await page.getByLabel('Repository').fill('shop/api');
      await page.getByLabel('Account id (12 digits)').fill('1234');
      await page.getByLabel('Region').fill('eu-west-1');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const refusal = await textOf(page.getByRole('alert'), (text) => text.includes('Not added'));
      assert.match(refusal, /cloudA_account_id/);
      assert.match(refusal, /request id/);

      await page.getByLabel('Type').selectOption('generic');
      await page.getByLabel('Registry address').fill('registry.example.com/team');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('cell', { name: 'registry.example.com/team' }).waitFor();
      const stored = (await f.api(`/accounts/${f.tenant.accountId}/registries`)).body;
      assert.deepEqual(
        stored.map((r: { repository_name: string }) => r.repository_name),
        ['registry.example.com/team'],
      );
    }));

  test('cluster actions: the actions of the selected cluster', () =>
    chrome.step('actions', async (page) => {
      if (!f.cluster || !f.offers('POST /accounts/{account_id}/clusters/{cluster_id}/actions')) return;
      const pod = (await f.api(`/accounts/${f.tenant.accountId}/inventory_containers?limit=1`)).body
        .entries[0];
      const created = await f.t.request({
        method: 'POST',
        url: `/accounts/${f.tenant.accountId}/clusters/${f.cluster.id}/actions`,
        token: f.tenant.adminToken,
        body: {
          action_type: 'terminate_pod',
          target_namespace: pod.pod_namespace,
          target_pod_name: pod.pod_name,
        },
      });
      assert.equal(created.status, 201, created.text);
      await nav(page, 'Cluster actions').click();
      await page.getByRole('cell', { name: `${pod.pod_namespace}/${pod.pod_name}` }).waitFor();
      await page.getByRole('cell', { name: 'Pending' }).waitFor();
    }));

  test('access keys: the secret is shown once; revoking asks first', () =>
    chrome.step('access-keys', async (page) => {
      await nav(page, 'Access keys').click();
      await page.getByRole('button', { name: 'Create a key' }).click();
      await page.getByLabel('Name').fill('browser-key');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('Copy the secret key now: it is shown only once.').waitFor();
      const id = await page.getByLabel('Access key id').inputValue();
      const secret = await page.getByLabel('Secret key').inputValue();
      assert.match(secret, /^psk_/);
      const login = async () =>
        (
          await f.t.request({
            method: 'POST',
            url: '/authentication/authenticate',
            body: { access_key_id: id, secret_key: secret },
          })
        ).status;
      assert.equal(await login(), 200, 'the shown secret works');
      await page.getByRole('button', { name: 'I have saved the secret' }).click();
      assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone from the page');

      const revoke = page.getByRole('button', { name: `Revoke browser-key (${id})` });
      await revoke.click();
      await page
        .getByRole('dialog', { name: 'Revoke this access key?' })
        .getByRole('button', { name: 'Cancel' })
        .click();
      assert.equal(
        (await f.api(`/accounts/access_keys/${id}`)).body.revoked_at,
        null,
        'cancel changes nothing',
      );
      await revoke.click();
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.locator('tr', { hasText: id }).getByText('revoked').waitFor();
      assert.notEqual((await f.api(`/accounts/access_keys/${id}`)).body.revoked_at, null);
      assert.equal(await login(), 401);
    }));

  test('users and roles: change a role; a refused change reads clearly', () =>
    chrome.step('users', async (page) => {
      await nav(page, 'Users and roles').click();
      await page.getByRole('button', { name: 'Edit roles of vera-viewer' }).click();
      const dialog = page.getByRole('dialog', { name: 'Roles of vera-viewer' });
      await dialog.getByLabel('Role 1', { exact: true }).selectOption('editor');
      await dialog.getByRole('button', { name: 'Save roles' }).click();
      await page.getByText('Roles of vera-viewer saved.').waitFor();
      await page.locator('tr', { hasText: 'vera-viewer' }).getByText('editor').waitFor();
      const roles = (await f.api(`/accounts/${f.tenant.accountId}/users/${f.viewer.userId}/roles`)).body
        .roles;
      assert.deepEqual(
        roles.map((r: { level: string; name: string }) => `${r.level}:${r.name}`),
        ['account:editor'],
      );

      await page.getByRole('button', { name: 'Edit roles of admin' }).click();
      const adminDialog = page.getByRole('dialog', { name: 'Roles of admin' });
      await adminDialog.getByRole('button', { name: 'Remove role 1' }).click();
      await adminDialog.getByRole('button', { name: 'Save roles' }).click();
      const refusal = await textOf(adminDialog.getByRole('alert'), (text) =>
        text.includes('Roles not changed'),
      );
      assert.match(refusal, /at least one tenant-level admin/);
      assert.match(refusal, /HTTP 409 · code conflict · request id [0-9a-f-]{36}/);
      await adminDialog.getByRole('button', { name: 'Cancel' }).click();
    }));

  test('keyboard and narrow screens: skip link, folded navigation', () =>
    chrome.step('narrow', async (page) => {
      await page.goto(view('/users'));
      await heading(page, 'Users and roles').waitFor();
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate<string>('document.activeElement?.textContent'), 'Skip to content');
      await page.setViewportSize({ width: 390, height: 800 });
      try {
        assert.equal(await nav(page, 'Containers').isVisible(), false, 'folded');
        await page.getByRole('button', { name: 'Menu' }).click();
        await nav(page, 'Containers').click();
        await heading(page, 'Containers').waitFor();
        assert.equal(await nav(page, 'Containers').isVisible(), false, 'folds again after navigating');
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    }));

  test('an expired session sends the person to sign-in with a message, then back', () =>
    chrome.step('expired', async (page) => {
      const cookie = (await chrome.context.cookies()).find((c) => c.name === 'ory_kratos_session');
      assert.ok(cookie);
      await f.t.db.query(
        `update sessions set expires_at = now() - interval '1 minute' where token_hash = $1`,
        [hashToken(cookie.value)],
      );
      // Written behind the server's back: its session cache (docs/auth.md) must be told.
      announceSessionChange({ all: true });
      await nav(page, 'Users and roles').click();
      await page.getByText('Your session has expired. Sign in again to continue.').waitFor();
      await signIn(page);
      await heading(page, 'Users and roles').waitFor();
    }));

  test('sign-out ends the session on the server', () =>
    chrome.step('sign-out', async (page) => {
      const cookie = (await chrome.context.cookies()).find((c) => c.name === 'ory_kratos_session');
      assert.ok(cookie);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      assert.equal((await chrome.context.cookies()).filter((c) => c.name === 'ory_kratos_session').length, 0);
      const reuse = await f.t.request({ method: 'GET', url: '/accounts', token: cookie.value });
      assert.equal(reuse.status, 401, 'the token no longer works anywhere');
      await page.goto(`${f.baseUrl}/console/access-keys`);
      await heading(page, 'Sign in to Posture').waitFor();
    }));

  test('no request left the origin, no CSP violation, no page error', () => {
    assert.deepEqual(chrome.foreignRequests, []);
    assert.deepEqual(chrome.pageProblems, []);
  });
});
