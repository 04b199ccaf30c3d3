/** Per-account runtime settings: the baseline learning window and the trusted IP prefixes. */
import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';

export const MAX_TRUSTED_PREFIXES = 1000;
export const MAX_WINDOW_SECONDS = 30 * 24 * 3600;

const TrustedPrefix = Type.Object(
  {
    cidr: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IPv4 or IPv6 prefix (10.0.0.0/8, fd00::/8); a bare address is a host prefix',
    }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

const settingsFields = {
  learning_window_seconds: Type.Integer({
    minimum: 1,
    maximum: MAX_WINDOW_SECONDS,
    description: "a baseline is captured this long after a workload container's first event (default 3600)",
  }),
  learning_window_max_events: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()], {
    description: '... or once this many events were learned, whichever comes first; null: no count limit',
  }),
  trusted_ip_prefixes: Type.Array(TrustedPrefix, {
    maxItems: MAX_TRUSTED_PREFIXES,
    description: 'destinations in these prefixes are trusted (connections, HTTP observations)',
  }),
};

export const RuntimeSettingsSchema = Type.Object({
  account_id: Type.String(),
  ...settingsFields,
  updated_at: Type.Union([Timestamp, Type.Null()], { description: 'null while the defaults apply' }),
});

export const RuntimeSettingsBody = Type.Object(settingsFields, { additionalProperties: false });
