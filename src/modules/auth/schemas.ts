import { Type } from 'typebox';

export const SessionRequest = Type.Object(
  {
    access_key_id: Type.String({ minLength: 1, maxLength: 256 }),
    secret_key: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const SessionResponse = Type.Object({
  token: Type.String({ description: 'send as Authorization: Bearer <token>' }),
  expires_at: Type.String({ format: 'date-time', description: 'RFC 3339, UTC' }),
});
