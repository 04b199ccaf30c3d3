// Types of scripts/test-group.mjs, for the test that runs its entry module (tsc does not read JS here).
export function describeFiles(root: string, files: readonly string[]): void;
export function entryModule(root: string, files: readonly string[]): string;
