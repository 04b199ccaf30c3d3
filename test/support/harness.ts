/**
 * The test harness: the real app on a real, freshly migrated database, called in-process with
 * `inject`. Every response passes through the OpenAPI validator, so a route whose answers drift
 * from its documented schema fails whichever test hits it.
 *
 * @example
 *   const t = await startTestApp();          // once per test file (after(() => t.close()))
 *   const tenant = await createTenant(t);    // a fresh tenant per test
 *   const res = await t.request({ method: 'GET', url: '/accounts', token: tenant.adminToken });
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, testConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import type { Level, Role } from '../../src/http/actor.js';
import { createTenancyService, type TenancyService } from '../../src/modules/tenancy/service.js';
import type { Services } from '../../src/services.js';
import { createTestDatabase } from './database.js';
import { createResponseValidator, type ResponseValidator } from './openapi-validator.js';

export const TEST_PEPPER = 'test-pepper-test-pepper-test-pepper-0000';

export interface TestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  url: string;
  token?: string;
  body?: unknown;
  /** a raw payload (string or Buffer), sent as is */
  payload?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect bodies of every shape
  body: any;
}

export interface TestApp {
  app: FastifyInstance & { services: Services };
  db: Database;
  tenancy: TenancyService;
  config: Config;
  request(request: TestRequest): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = testConfig({ RATE_LIMIT_PER_MINUTE: 0, ...overrides, DATABASE_URL: database.url });
  const app = await buildApp({ config, db: database.db, pepper: TEST_PEPPER });
  await app.ready();
  let validator: ResponseValidator | undefined;

  async function request(req: TestRequest): Promise<TestResponse> {
    const headers: Record<string, string> = { ...req.headers };
    if (req.token) headers.authorization = `Bearer ${req.token}`;
    let payload: string | Buffer | undefined = req.payload;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({
      method: req.method,
      url: req.url,
      headers,
      ...(req.query ? { query: req.query } : {}),
      ...(payload !== undefined ? { payload } : {}),
    });
    validator ??= createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
    const contentType = res.headers['content-type'] as string | undefined;
    const problems = validator.check(req.method, req.url, res.statusCode, contentType, res.body);
    assert.deepEqual(problems, [], `response does not match /openapi.json:\n${res.body.slice(0, 2000)}`);
    if (res.statusCode >= 400) {
      // Every error is the description's ApiError with the request id of its header.
      const error = res.json();
      assert.equal(error.status, res.statusCode, 'error body status');
      assert.equal(error.request_id, res.headers['x-request-id'], 'error request_id matches x-request-id');
    }
    assert.equal(res.headers['x-api-version'], '0.0.21');
    let body: unknown = res.body;
    if (contentType?.startsWith('application/json') && res.body.length > 0) body = res.json();
    return { status: res.statusCode, headers: res.headers, text: res.body, body };
  }

  return {
    app,
    // The owner's handle: fixtures and direct reads are not bound by row-level security (and the
    // app under test, on database.db, is). See test/support/database.ts.
    db: database.owner,
    tenancy: createTenancyService({ db: database.owner, pepper: TEST_PEPPER }),
    config,
    request,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export async function login(t: TestApp, accessKeyId: string, secretKey: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/authentication/authenticate',
    body: { access_key_id: accessKeyId, secret_key: secretKey },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.token;
}

export interface TestUser {
  userId: string;
  accessKeyId: string;
  secretKey: string;
  token: string;
}

export interface TestTenant {
  tenantId: string;
  accountId: string;
  admin: TestUser;
  adminToken: string;
  addAccount(name?: string): Promise<string>;
  /** A user with the given roles and a key (tenant-scoped unless keyAccountId is given). */
  addUser(
    roles: { level: Level; accountId?: string; role: Role }[],
    options?: { keyAccountId?: string; name?: string },
  ): Promise<TestUser>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${Date.now().toString(36)}`;

/** A fresh tenant with one account and a tenant admin who is signed in. */
export async function createTenant(t: TestApp): Promise<TestTenant> {
  const boot = await t.tenancy.bootstrap({ tenant: unique('tenant'), account: 'main', user: 'admin' });
  const adminToken = await login(t, boot.access_key_id, boot.secret_key);
  const admin: TestUser = {
    userId: boot.user_id,
    accessKeyId: boot.access_key_id,
    secretKey: boot.secret_key,
    token: adminToken,
  };
  return {
    tenantId: boot.tenant_id,
    accountId: boot.account_id,
    admin,
    adminToken,
    async addAccount(name = unique('account')) {
      return (await t.tenancy.createAccount({ tenantId: boot.tenant_id, name })).account_id;
    },
    async addUser(roles, options = {}) {
      const { user_id } = await t.tenancy.createUser({
        tenantId: boot.tenant_id,
        name: options.name ?? unique('user'),
      });
      for (const role of roles) {
        await t.tenancy.assignRole({
          tenantId: boot.tenant_id,
          userId: user_id,
          level: role.level,
          accountId: role.level === 'tenant' ? null : (role.accountId ?? boot.account_id),
          role: role.role,
        });
      }
      const key = await t.tenancy.createAccessKey({
        tenantId: boot.tenant_id,
        userId: user_id,
        name: 'test',
        scope: options.keyAccountId ? 'account' : 'tenant',
        accountId: options.keyAccountId ?? null,
      });
      const token = await login(t, key.access_key_id, key.secret_key);
      return { userId: user_id, accessKeyId: key.access_key_id, secretKey: key.secret_key, token };
    },
  };
}
