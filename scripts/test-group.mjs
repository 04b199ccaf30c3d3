// The body of a test process that runs several test files (scripts/test.mjs writes one entry per
// process, `entryModule`, that calls this). Each file is imported inside a suite named after it, so its top-level
// tests and hooks belong to that suite: its `before` runs when its turn comes, its `after` when
// its last test is done, and the report names the file of every test.

import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';

/** Runs the given test files (paths relative to `root`) one after the other in this process. */
export function describeFiles(root, files) {
  for (const file of files) {
    describe(file, async () => {
      try {
        await import(pathToFileURL(resolve(root, file)).href);
      } catch (error) {
        // A failed suite alone fails the run but is not counted among the failed tests; a file
        // that does not load is, as it was when each file had a process of its own.
        test('loads', () => {
          throw error;
        });
      }
    });
  }
}

/** The text of the entry module of one process that runs `files` (paths relative to `root`). */
export function entryModule(root, files) {
  return (
    `import { describeFiles } from ${JSON.stringify(import.meta.url)};\n` +
    `describeFiles(${JSON.stringify(root)}, ${JSON.stringify(files, null, 2)});\n`
  );
}
