import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';

const bodyDescription = (text: string) => ({ schema: { description: text } });

/** Documents the raw body; the route reads it as bytes and detects the feed from the content. */
export const FeedImportBody = {
  description:
    'One feed file, detected from the content: FIRST EPSS CSV (`#model_version...` comment line, then ' +
    '`cve,epss,percentile`) or the CISA KEV JSON catalog (`vulnerabilities[].cveID`). Gzip is accepted ' +
    '(`Content-Encoding: gzip` or recognised by its magic bytes), up to 64 MiB on the wire.',
  content: {
    'text/csv': bodyDescription('an EPSS scores file'),
    'application/json': bodyDescription('the KEV catalog'),
    'application/gzip': bodyDescription('either, gzip-compressed (epss_scores-current.csv.gz as downloaded)'),
    'application/octet-stream': bodyDescription('either'),
  },
};

export const FeedImportHeaders = Type.Object({
  'content-encoding': Type.Optional(Type.String({ description: 'gzip or identity' })),
});

export const FeedImportResultSchema = Type.Object({
  feed: Type.Enum(['epss', 'kev'], { description: 'what the file was detected as' }),
  rows: Type.Integer({ description: 'CVEs the feed now holds (it replaced the previous import)' }),
  compressed: Type.Boolean({ description: 'the file was gzip' }),
  version: Type.Union([Type.String(), Type.Null()], {
    description: 'EPSS model_version or KEV catalogVersion, when the file names one',
  }),
  published_at: Type.Union([Timestamp, Type.Null()], {
    description: 'EPSS score_date or KEV dateReleased, when the file names one',
  }),
  imported_at: Timestamp,
});
