/**
 * The orchestrator's handle on the bare HTTP ceiling process (bare-http.ts): `serve(body)` makes
 * it answer those bytes and returns the URL to load.
 */
import { Helper } from '../load/protocol.js';

export class BareHttpCeiling {
  private readonly helper = new Helper('../ceilings/bare-http.ts');

  async serve(body: string, contentType: string): Promise<string> {
    const { port } = await this.helper.ask<{ port: number }>({ body, contentType });
    return `http://127.0.0.1:${port}/`;
  }

  get pid(): number {
    return this.helper.pid;
  }

  stop(): Promise<void> {
    return this.helper.stop();
  }
}
