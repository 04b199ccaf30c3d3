/**
 * Builds the web console into dist/console, served by the API process under /console
 * (src/modules/console). `npm run build:console` builds it; `npm run dev:console` serves it with
 * hot reload and forwards API calls to a server on http://127.0.0.1:8080.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const consoleDir = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.POSTURE_URL ?? 'http://127.0.0.1:8080';
const apiPrefixes = [
  '/accounts',
  '/clusters',
  '/tenants',
  '/authentication',
  '/openapi.json',
  '/console/session',
];

export default defineConfig({
  root: consoleDir,
  base: '/console/',
  // React's automatic runtime through Vite's own esbuild: no React plugin needed.
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The CSP allows scripts and images from this origin only: no inline polyfill, no data: URLs.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rollupOptions: {
      output: {
        // One chunk per view; the pieces views share (components, hooks, API client) in one more,
        // instead of a dozen tiny files each view would wait for.
        manualChunks: (id) =>
          /[\\/]console[\\/]src[\\/](components|hooks|api)[\\/]|[\\/](paths|record-state|labels)\.ts$/.test(
            id,
          )
            ? 'shared'
            : undefined,
      },
    },
  },
  server: {
    proxy: Object.fromEntries(apiPrefixes.map((prefix) => [prefix, { target: api, changeOrigin: false }])),
  },
});
