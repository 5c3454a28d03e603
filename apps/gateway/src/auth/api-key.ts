import { hash, randomBytes } from 'node:crypto';

/**
 * API keys are 40 lowercase hexadecimal characters (160 random bits): the format client SDKs of
 * this API already send. Only the SHA-256 of a key is stored; the key itself is shown once.
 */
const API_KEY_PATTERN = /^[0-9a-f]{40}$/;

/** A fresh random API key. */
export function generateApiKey(): string {
  return randomBytes(20).toString('hex');
}

/** Whether a presented key has the format of a key (else AUTH002 without asking Postgres). */
export function isApiKeyFormat(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}

/**
 * What `api_keys.key_hash` holds: SHA-256 of the key. A fast hash suffices for 160 random bits.
 * One-shot `hash`: every request hashes its key, and a `Hash` object costs it twice the time.
 */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** A short reminder of a key for listings and support ("…3f9a"): the last 4 of 40 characters. */
export function apiKeyHint(key: string): string {
  return `…${key.slice(-4)}`;
}
