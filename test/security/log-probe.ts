/**
 * Run by credentials.test.ts in a child process: the real app with every log line on (trace) to
 * this process's stdout, driven through a key's whole life (created over HTTP, used, refused with
 * wrong secrets, revoked). The secret and the session token go to stderr only, as the last line,
 * so the parent can look for them in the log lines.
 */
import { createTenant, login, startTestApp } from '../support/harness.js';

const t = await startTestApp({ LOG_LEVEL: 'trace', LOGIN_MAX_FAILURES: 3 });
const tenant = await createTenant(t);
const created = await t.request({
  method: 'POST',
  url: '/accounts/access_keys',
  token: tenant.adminToken,
  body: { name: 'logged', scope: 'tenant' },
});
const secret: string = created.body.secret_key;
const token = await login(t, created.body.id, secret);
await t.request({ method: 'GET', url: '/accounts', token });
await t.request({ method: 'GET', url: '/accounts', headers: { cookie: `ory_kratos_session=${token}` } });
for (const wrong of [`${secret}x`, secret.slice(0, -1), secret.toUpperCase(), secret, secret]) {
  await t.request({
    method: 'POST',
    url: '/authentication/authenticate',
    body: { access_key_id: created.body.id, secret_key: wrong },
  });
}
await t.request({
  method: 'PUT',
  url: `/accounts/access_keys/${created.body.id}/revoke`,
  token: tenant.adminToken,
});
await t.request({ method: 'GET', url: '/accounts', token });
await t.close();
process.stderr.write(`\n${JSON.stringify({ secret, token })}\n`);
