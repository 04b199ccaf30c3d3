/**
 * The server as the tests spawn it: src/server.ts bundled by esbuild into one module, built once
 * per content of src/ (test-cache.ts). `node --import tsx src/server.ts` transpiles the same
 * files with the same esbuild, but answers each of the app's hundreds of imports from its loader
 * thread: a boot took 4.2 to 4.8 s of CPU through tsx against 1.8 to 2.1 s from the bundle
 * (docs/development.md, "Tests"), and the kill suites boot a server per cycle.
 *
 * Production runs the tsc build (`npm start`); neither is it, and all three are the same source.
 *
 * @example
 *   spawn(process.execPath, [await serverBundle()], { env });
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { filesFingerprint, repositoryRoot } from './schema-fingerprint.js';
import { cachedPath, partialOf, publish } from './test-cache.js';

const SOURCE = join(repositoryRoot, 'src');

/** Every module the server may import: the sources, without their tests. */
function serverSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return serverSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Each module keeps its own `import.meta.url`: the modules find the sample data, the console's
 * build and package.json relative to where they live in src/, not to where the bundle is.
 */
const ownModuleUrls: Plugin = {
  name: 'own-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: 'ts',
    }));
  },
};

let bundled: Promise<string> | undefined;

/** The path of the bundle of the current src/, built first when this content has none yet. */
export function serverBundle(): Promise<string> {
  bundled ??= bundleCurrentSources();
  return bundled;
}

async function bundleCurrentSources(): Promise<string> {
  // This file too: how the bundle is built is part of what it is.
  const inputs = [...serverSources(SOURCE).sort(), fileURLToPath(import.meta.url)];
  const path = cachedPath('server-', filesFingerprint(inputs), '.mjs');
  if (existsSync(path)) return path;
  await build({
    entryPoints: [join(SOURCE, 'server.ts')],
    outfile: partialOf(path),
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    plugins: [ownModuleUrls],
    logLevel: 'warning',
  });
  publish(path, 'server-');
  return path;
}
