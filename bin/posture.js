#!/usr/bin/env node
// The `posture` CLI: the compiled build (npm run build) when there is one, else the TypeScript
// source through tsx, so `npx posture` works in a fresh clone right after `npm install`.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
