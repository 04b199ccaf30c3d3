/**
 * Sealing of integration secrets at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the
 * server secret (POSTURE_SECRET, or the generated DATA_DIR/posture.secret), so a copy of the
 * database alone does not reveal them. The additional data binds a sealed value to its tenant and
 * integration: a blob copied onto another row does not open.
 *
 * Layout: version (1 byte) | IV (12) | tag (16) | ciphertext.
 *
 * @example
 *   const box = createSecretBox(pepper);
 *   const sealed = box.seal({ signing_secret: 's3cret' }, `${tenantId}/${id}`);
 *   box.open(sealed, `${tenantId}/${id}`); // { signing_secret: 's3cret' }
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SecretValues = Record<string, string>;

export interface SecretBox {
  seal(values: SecretValues, context: string): Buffer;
  open(sealed: Buffer, context: string): SecretValues;
}

export function createSecretBox(serverSecret: string): SecretBox {
  // A distinct derived key: the pepper's other use (access-key HMACs) never shares key material.
  const key = Buffer.from(hkdfSync('sha256', serverSecret, 'posture', 'integrations secrets v1', 32));
  return {
    seal(values, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(JSON.stringify(values), 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
    },
    open(sealed, context) {
      if (sealed[0] !== VERSION) throw new Error('unknown sealed-secret version');
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(tag);
      const body = sealed.subarray(1 + IV_BYTES + TAG_BYTES);
      return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8'));
    },
  };
}
