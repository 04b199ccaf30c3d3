/**
 * Files in the repository that are generated from code: the JSON Schema of the event format and
 * the sample stream. A test fails when one is stale; regenerate them with
 * `npx tsx src/engines/runtime/generated-files.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runtimeEventJsonSchema } from './event-schema.js';
import { shopStream } from './sample/shop-stream.js';

const repoFile = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

export const GENERATED_FILES = [
  {
    path: repoFile('schemas/runtime-event.schema.json'),
    content: () => `${JSON.stringify(runtimeEventJsonSchema(), null, 2)}\n`,
  },
  {
    path: repoFile('sample/runtime/shop-events.ndjson'),
    content: () =>
      `${shopStream()
        .map((line) => JSON.stringify(line))
        .join('\n')}\n`,
  },
];

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of GENERATED_FILES) {
    writeFileSync(file.path, file.content());
    console.log(`wrote ${file.path}`);
  }
}
