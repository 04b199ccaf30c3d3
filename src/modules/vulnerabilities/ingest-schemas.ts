import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../ingest/idempotency.js';

const bodyDescription = (text: string) => ({ schema: { description: text } });

/** Documents the raw body; the route reads it as bytes and detects the format from the content. */
export const ScanPushBody = {
  description:
    'One image scan report: Trivy JSON (`trivy image -f json`), Grype JSON (`grype -o json`) or ' +
    'CycloneDX JSON 1.4 to 1.7 (with or without vulnerabilities), detected from the content whatever ' +
    'the Content-Type. Up to 64 MiB; gzip with `Content-Encoding: gzip` (or recognised by its magic ' +
    'bytes), at most 256 MiB once decompressed. See docs/vulnerability-ingestion.md.',
  content: {
    'application/json': bodyDescription('a Trivy, Grype or CycloneDX JSON report'),
    'application/vnd.cyclonedx+json': bodyDescription('a CycloneDX JSON BOM'),
    'application/gzip': bodyDescription('any of the above, gzip-compressed'),
    'application/octet-stream': bodyDescription('any of the above'),
  },
};

export const ScanPushHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: 'a retried push with the same key replays the first answer and changes nothing',
    }),
  ),
  'content-encoding': Type.Optional(Type.String({ description: 'gzip or identity' })),
});

export const ScanPushResult = Type.Object({
  cluster_id: Type.String(),
  image_id: Type.String({ description: 'the scanned image: one per registry digest in the account' }),
  format: Type.Enum(['trivy', 'grype', 'cyclonedx'], { description: 'what the body was detected as' }),
  outcome: Type.Enum(['created', 'replaced', 'superseded'], {
    description:
      "created: the image's first scan; replaced: it replaced the findings of the image's previous " +
      'scan; superseded: the account holds a newer scan of this image, so nothing changed',
  }),
  image: Type.Object({
    image_repo: Type.String({ description: 'registry and repository, e.g. docker.io/library/nginx' }),
    image_name: Type.String({ description: 'last component of the repository, e.g. nginx' }),
    image_tag: Type.String({ description: "'' when the report names no tag" }),
    image_digest: Type.String({ description: "registry digest, sha256:...; '' when the report has none" }),
  }),
  scanned_at: Timestamp,
  packages: Type.Integer({ description: 'packages in the report (one per name + version)' }),
  vulnerabilities: Type.Integer({ description: 'findings in the report (one per id + package + version)' }),
});
