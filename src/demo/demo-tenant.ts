/**
 * The demo tenant `npm start` creates on the first start of an empty store, so a newcomer can
 * sign in at once. Its access key is printed once, to stdout, never to the logs.
 */
import type { Database } from '../db/database.js';
import { createTenancyService } from '../modules/tenancy/service.js';

export async function ensureDemoTenant(deps: {
  db: Database;
  pepper: string;
  baseUrl: string;
}): Promise<void> {
  const tenancy = createTenancyService(deps);
  if (await tenancy.hasAnyTenant()) return;
  const demo = await tenancy.bootstrap({ tenant: 'demo', account: 'demo', user: 'demo-admin' });
  process.stdout.write(
    [
      '',
      'Posture demo tenant created. This access key is shown once; keep it:',
      `  access_key_id: ${demo.access_key_id}`,
      `  secret_key:    ${demo.secret_key}`,
      `  tenant_id:     ${demo.tenant_id}`,
      `  account_id:    ${demo.account_id}`,
      '',
      'Try:',
      `  curl -s ${deps.baseUrl}/authentication/authenticate -d '{"access_key_id":"${demo.access_key_id}","secret_key":"<secret_key>"}'`,
      '',
    ].join('\n'),
  );
}
