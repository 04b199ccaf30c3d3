/**
 * `posture ingest`: pushes files through the HTTP ingestion API, each to the endpoint its content
 * calls for (Kubernetes objects, scan reports, runtime events), with a progress bar on stderr.
 */
import { readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { SingleBar } from 'cli-progress';
import { type Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { type Chunk, isNdjson, readMaybeGzip, splitNdjson } from '../ingest/chunks.js';
import { authenticate, type IngestTarget, push } from '../ingest/client.js';
import { detectIngestKind, type IngestKind } from '../ingest/detect.js';
import { uuid } from '../options.js';
import type { CliIo } from '../store.js';
import { examples, jsonOption } from './common.js';

interface IngestOptions {
  url: string;
  keyId: string;
  secret?: string;
  account: string;
  cluster: string;
  kind?: IngestKind;
  snapshot?: boolean;
  json?: boolean;
}

interface Planned {
  file: string;
  kind: IngestKind;
  chunks: Chunk[];
  bytes: number;
}

async function plan(file: string, forced: IngestKind | undefined): Promise<Planned> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  const text = readMaybeGzip(bytes);
  const detected = forced ?? detectIngestKind(text);
  if (typeof detected !== 'string')
    throw new UsageError(`${file}: cannot tell what it holds: ${detected.problem}`);
  const chunks = isNdjson(text) ? splitNdjson(text) : [{ text }];
  return { file, kind: detected, chunks, bytes: (await stat(file)).size };
}

const chunkLabel = (planned: Planned, chunk: Chunk) =>
  chunk.lines && planned.chunks.length > 1
    ? `${planned.file} (lines ${chunk.lines[0]}-${chunk.lines[1]})`
    : planned.file;

export function registerIngestCommand(program: Command, io: CliIo): void {
  program
    .command('ingest')
    .description(
      'push files (Kubernetes objects, scan reports, runtime events; gzip allowed) to a Posture server',
    )
    .argument('<files...>', 'files to push; the content decides the endpoint')
    .requiredOption('--url <url>', 'the server, e.g. http://127.0.0.1:8080')
    .requiredOption('--key-id <access_key_id>', 'access key id (pak_...)')
    .option('--secret <secret_key>', 'secret key (psk_...); default: the POSTURE_SECRET_KEY variable')
    .addOption(new Option('--account <account_id>', 'the account').argParser(uuid).makeOptionMandatory())
    .addOption(new Option('--cluster <cluster_id>', 'the cluster').argParser(uuid).makeOptionMandatory())
    .addOption(
      new Option('--kind <kind>', 'skip detection').choices(['kubernetes', 'vulnerabilities', 'runtime']),
    )
    .option(
      '--snapshot',
      'Kubernetes files are complete snapshots: objects of their kinds absent from them are deleted',
    )
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples(
        'posture ingest --url http://127.0.0.1:8080 --key-id pak_... --account <id> --cluster <id> cluster.json trivy.json',
        'kubectl get pods,deployments -A -o json | gzip > now.json.gz && posture ingest ... --snapshot now.json.gz',
      ),
    )
    .action(async (files: string[], options: IngestOptions) => {
      const secret = options.secret ?? io.env.POSTURE_SECRET_KEY;
      if (!secret) throw new UsageError('give the secret key with --secret or POSTURE_SECRET_KEY');
      let base: URL;
      try {
        base = new URL(options.url);
      } catch {
        throw new UsageError(`--url: "${options.url}" is not a URL`);
      }
      const planned: Planned[] = [];
      for (const file of files) planned.push(await plan(file, options.kind));

      const target: IngestTarget = {
        url: base.toString(),
        accountId: options.account,
        clusterId: options.cluster,
      };
      const token = await authenticate(target.url, options.keyId, secret);
      const total = planned.reduce((sum, p) => sum + p.chunks.length, 0);
      const bar = new SingleBar({
        stream: io.stderr as unknown as NodeJS.WritableStream,
        format: 'pushing [{bar}] {value}/{total} pushes | {file}',
        hideCursor: true,
      });
      bar.start(total, 0, { file: '' });
      const results: Record<string, unknown>[] = [];
      try {
        for (const p of planned) {
          for (const chunk of p.chunks) {
            const label = chunkLabel(p, chunk);
            bar.update({ file: label });
            const body = gzipSync(Buffer.from(chunk.text));
            const answer = await push(target, token, {
              kind: p.kind,
              body,
              gzip: true,
              snapshot: options.snapshot === true,
              label,
            });
            results.push({ file: label, kind: p.kind, ...answer });
            bar.increment();
          }
        }
      } finally {
        bar.stop();
      }
      if (options.json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
      else for (const result of results) io.stdout.write(`${describe(result)}\n`);
    });
}

function describe(result: Record<string, unknown>): string {
  const counts = Object.entries(result)
    .filter(([key, value]) => typeof value === 'number' && key !== 'cluster_id')
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
  return `${result.file}: ${result.kind}${counts ? `: ${counts}` : ''}`;
}
