/**
 * Credentials: how ids, secrets and session tokens are made, and how they are stored (keyed or
 * plain hashes only, never the secret itself). Distinct prefixes make leaked values greppable:
 * `pak_` access key id, `psk_` secret key, `pst_` session token.
 */
import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';

export const ACCESS_KEY_ID_PREFIX = 'pak_';
export const SECRET_KEY_PREFIX = 'psk_';
export const SESSION_TOKEN_PREFIX = 'pst_';

const random = (bytes: number): string => randomBytes(bytes).toString('base64url');

export const newAccessKeyId = (): string => `${ACCESS_KEY_ID_PREFIX}${randomBytes(12).toString('hex')}`;
export const newSecretKey = (): string => `${SECRET_KEY_PREFIX}${random(32)}`;
/** 256 bits of randomness: guessing one is not a strategy. */
export const newSessionToken = (): string => `${SESSION_TOKEN_PREFIX}${random(32)}`;

/** Keyed hash of an access-key secret: a stolen database alone does not allow offline guessing. */
export function hashSecret(pepper: string, secret: string): Buffer {
  return createHmac('sha256', pepper).update(secret).digest();
}

/** Session tokens carry 256 random bits, so a plain SHA-256 is enough to store them. */
export function hashToken(token: string): Buffer {
  // crypto.hash, one call: createHash().update().digest() costs several times more, and this runs
  // on every authenticated request (tokenDigest).
  return hash('sha256', token, 'buffer');
}

/** hashToken's digest as base64 text: how in-memory maps (the session cache) key a token. */
export function tokenDigest(token: string): string {
  return hash('sha256', token, 'base64');
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The server pepper: POSTURE_SECRET, or a random one generated once into DATA_DIR/posture.secret
 * (mode 0600) so `npm start` needs no setup. A throwaway in-memory store gets a throwaway pepper.
 */
export function loadServerSecret(config: Pick<Config, 'POSTURE_SECRET' | 'DATA_DIR'>): string {
  if (config.POSTURE_SECRET) return config.POSTURE_SECRET;
  if (config.DATA_DIR === ':memory:') return random(32);
  const file = join(config.DATA_DIR, 'posture.secret');
  if (!existsSync(file)) {
    mkdirSync(config.DATA_DIR, { recursive: true });
    writeFileSync(file, `${random(48)}\n`, { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return readFileSync(file, 'utf8').trim();
}
