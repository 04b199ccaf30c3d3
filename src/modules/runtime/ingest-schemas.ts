/** The runtime ingestion endpoint: NDJSON events in, what was stored out. */
import { Type } from 'typebox';
import { IDEMPOTENCY_KEY_PATTERN } from '../../ingest/idempotency.js';

const described = (text: string) => ({ schema: { description: text } });

/** Documents the raw body; the route reads it as bytes. */
export const RuntimePushBody = {
  description:
    'NDJSON: one runtime event (schemas/runtime-event.schema.json) or Falco JSON alert per line, ' +
    'detected per line (docs/runtime-events.md). Up to 64 MiB; gzip with `Content-Encoding: gzip` ' +
    '(or recognised by its magic bytes), at most 256 MiB once decompressed. The first bad line ' +
    'refuses the whole push (400 naming the line) and nothing from it is stored.',
  content: {
    'application/x-ndjson': described('events, one per line'),
    'application/json': described('events, one per line'),
    'application/gzip': described('the same, gzip-compressed'),
    'application/octet-stream': described('the same'),
  },
};

export const RuntimePushHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: 'a retried push with the same key replays the first answer and changes nothing',
    }),
  ),
  'content-encoding': Type.Optional(Type.String({ description: 'gzip or identity' })),
});

export const RuntimePushResult = Type.Object({
  cluster_id: Type.String(),
  events: Type.Integer({ description: 'events accepted (Falco alerts included)' }),
  formats: Type.Object({
    native: Type.Integer({ description: 'lines in the Posture event format' }),
    falco: Type.Integer({ description: 'Falco alerts mapped to events' }),
  }),
  skipped: Type.Array(Type.Object({ line: Type.Integer(), reason: Type.String() }), {
    description: 'valid lines that name no workload container (Falco host alerts); at most 100 listed',
  }),
  skipped_count: Type.Integer(),
  workload_containers: Type.Integer({
    description: 'workload containers whose fingerprint the push changed',
  }),
  baselines_captured: Type.Integer({ description: 'learning windows this push closed' }),
  drift_events: Type.Integer({ description: 'events of this push not covered by a captured baseline' }),
  insights: Type.Integer({ description: 'runtime insights created or updated' }),
  http_observations: Type.Integer({ description: 'HTTP request observations created or updated' }),
});
