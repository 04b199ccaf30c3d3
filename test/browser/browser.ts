/**
 * Chromium for the console's browser tests: Debian's /usr/bin/chromium driven by playwright-core,
 * with a fresh profile, and a record of everything a test must not see: requests to any other
 * origin, Content-Security-Policy violations and uncaught page errors. Each step saves a
 * screenshot under test-output/ when it fails.
 *
 * @example
 *   const chrome = await openChromium(baseUrl);
 *   await chrome.step('overview', async (page) => { ... });
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUTPUT_DIR = new URL('../../test-output/', import.meta.url);

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  page: Page;
  /** requests that went anywhere but the app under test */
  foreignRequests: string[];
  /** CSP violations and uncaught errors reported by the page */
  pageProblems: string[];
  /** Runs one scenario; on failure saves test-output/<name>.png and rethrows. */
  step(name: string, scenario: (page: Page) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function openChromium(baseUrl: string): Promise<Chromium> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'posture-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const foreignRequests: string[] = [];
  const pageProblems: string[] = [];
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${baseUrl}/`)) foreignRequests.push(url);
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect|frame)/i.test(message.text())) {
      pageProblems.push(`csp: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));

  return {
    context,
    page,
    foreignRequests,
    pageProblems,
    async step(name, scenario) {
      try {
        await scenario(page);
      } catch (error) {
        mkdirSync(OUTPUT_DIR, { recursive: true });
        await page
          .screenshot({ path: new URL(`${name}.png`, OUTPUT_DIR).pathname, fullPage: true })
          .catch(() => {});
        throw error;
      }
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Waits until the locator's text satisfies the check (playwright-core has no `expect`). */
export async function textOf(
  locator: Locator,
  check: (text: string) => boolean,
  timeout = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
    last = ((await locator.count()) > 0 ? await locator.first().innerText() : '').trim();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`text never matched; last seen: ${JSON.stringify(last.slice(0, 500))}`);
}

/** Waits until the page URL (path + search, below the origin) satisfies the check. */
export async function urlOf(page: Page, check: (url: URL) => boolean, timeout = 10_000): Promise<URL> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const url = new URL(page.url());
    if (check(url)) return url;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`URL never matched; last seen: ${page.url()}`);
}
