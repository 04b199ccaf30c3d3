import { Type } from 'typebox';
import { IDEMPOTENCY_KEY_PATTERN } from '../../ingest/idempotency.js';

const bodyDescription = (text: string) => ({ schema: { description: text } });

/** Documents the raw body; the route reads it as bytes and detects the format itself. */
export const KubernetesPushBody = {
  description:
    'What `kubectl get <kinds> -A -o json` prints (a List), one object, a JSON array of objects, or ' +
    'watch events `{"type":"ADDED|MODIFIED|DELETED","object":{...}}` as NDJSON. Detected from the ' +
    'content, whatever the Content-Type. Up to 64 MiB; gzip with `Content-Encoding: gzip` (or ' +
    'recognised by its magic bytes), at most 256 MiB once decompressed.',
  content: {
    'application/json': bodyDescription('a List, an object, an array or a stream of watch events'),
    'application/x-ndjson': bodyDescription('watch events, one per line'),
    'application/gzip': bodyDescription('any of the above, gzip-compressed'),
    'application/octet-stream': bodyDescription('any of the above'),
  },
};

export const KubernetesPushQuery = Type.Object({
  mode: Type.Optional(
    Type.Enum(['incremental', 'snapshot'], {
      default: 'incremental',
      description:
        'snapshot: the push is the whole state of the kinds it contains; live objects of those kinds ' +
        'that it does not contain are marked deleted (deletion_source snapshot)',
    }),
  ),
  observed_at: Type.Optional(
    Type.String({
      description: 'when the objects were read from the cluster (RFC 3339 or now-15m); default: now',
    }),
  ),
});

export const KubernetesPushHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: 'a retried push with the same key replays the first answer and changes nothing',
    }),
  ),
  'content-encoding': Type.Optional(Type.String({ description: 'gzip or identity' })),
});

export const KubernetesPushResult = Type.Object({
  cluster_id: Type.String(),
  format: Type.Enum(['list', 'object', 'stream'], { description: 'what the body was detected as' }),
  mode: Type.Enum(['incremental', 'snapshot']),
  received: Type.Integer({ description: 'items in the body, ignored watch events included' }),
  created: Type.Integer({ description: 'object versions stored for the first time' }),
  unchanged: Type.Integer({ description: 'object versions already stored' }),
  deleted: Type.Integer({ description: 'objects marked deleted by DELETED events or snapshot absence' }),
  restored: Type.Integer({ description: 'objects a snapshot had marked deleted, pushed again' }),
  ignored: Type.Integer({ description: 'BOOKMARK and ERROR watch events' }),
});
