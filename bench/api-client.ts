/**
 * The few HTTP calls the benchmark makes itself (authentication, cluster registration, ingestion
 * pushes, probes), over a real socket to the server process. A non-2xx answer stops the run: a
 * benchmark of failing requests measures nothing.
 */
import { randomUUID } from 'node:crypto';

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private token: string | null = null,
  ) {}

  static async login(baseUrl: string, accessKeyId: string, secretKey: string): Promise<ApiClient> {
    const client = new ApiClient(baseUrl);
    const session = await client.send<{ token: string }>('POST', '/authentication/authenticate', {
      body: JSON.stringify({ access_key_id: accessKeyId, secret_key: secretKey }),
    });
    client.token = session.token;
    return client;
  }

  get authorization(): string {
    return `Bearer ${this.token}`;
  }

  async send<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    options: { body?: string | Buffer; contentType?: string; idempotencyKey?: string } = {},
  ): Promise<T> {
    const attempt = () =>
      fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...(this.token ? { authorization: this.authorization } : {}),
          ...(options.body !== undefined
            ? { 'content-type': options.contentType ?? 'application/json' }
            : {}),
          ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
        },
        ...(options.body !== undefined ? { body: options.body } : {}),
      });
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      // A kept-alive socket the server closed just as it was reused: once more on a new one. Pushes
      // carry an Idempotency-Key, so a push the server did store is replayed, not stored twice.
      if (method === 'GET' || options.idempotencyKey) response = await attempt();
      else throw error;
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 400)}`);
    return JSON.parse(text) as T;
  }

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  post<T>(path: string, body: unknown, contentType?: string): Promise<T> {
    const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    return this.send<T>('POST', path, { body: payload, ...(contentType ? { contentType } : {}) });
  }

  /** An ingestion push, with an Idempotency-Key so that a retry can never store it twice. */
  push<T>(path: string, body: string, contentType?: string): Promise<T> {
    return this.send<T>('POST', path, {
      body,
      idempotencyKey: `bench-${randomUUID()}`,
      ...(contentType ? { contentType } : {}),
    });
  }
}
