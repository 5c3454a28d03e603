import type { GatewayConfig } from '../config';
import { generateApiKey, hashApiKey, isApiKeyFormat } from './api-key';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import type { ApiKeyRecord, ApiKeysRepository } from './api-keys.repository';
import { AuthErrorCode } from './auth.errors';

describe(ApiKeyAuthenticator.name, () => {
  const key = generateApiKey();
  let stored: ApiKeyRecord | undefined;
  let lookups = 0;
  let usesRecorded: string[] = [];
  const repository = {
    recordUse: async (keyId: string) => {
      usesRecorded.push(keyId);
    },
    findByHash: async (hash: Buffer) => {
      lookups++;
      return hash.equals(hashApiKey(key)) ? stored : undefined;
    },
  } as unknown as ApiKeysRepository;
  const authenticator = (ttlMs = 5_000) =>
    new ApiKeyAuthenticator(repository, { API_KEY_CACHE_TTL_MS: ttlMs, API_KEY_CACHE_MAX_ENTRIES: 10 } as GatewayConfig, {
      warn: () => undefined,
    });

  beforeEach(() => {
    lookups = 0;
    usesRecorded = [];
    stored = { keyId: 'k1', tenantId: 't1', expiresAt: null, revokedAt: null, tenantSuspendedAt: null };
  });

  describe('authenticate', () => {
    it('generates keys of the format it accepts', () => {
      expect(key).toMatch(/^[0-9a-f]{40}$/);
      expect(isApiKeyFormat(key)).toBe(true);
    });

    it.each([
      [undefined, AuthErrorCode.KeyMissing],
      ['', AuthErrorCode.KeyMissing],
      ['abc', AuthErrorCode.KeyMalformed],
      ['A'.repeat(40), AuthErrorCode.KeyMalformed],
      ['0'.repeat(41), AuthErrorCode.KeyMalformed],
      ['0'.repeat(40), AuthErrorCode.KeyNotFound],
    ])('refuses %p with %s', async (presented, code) => {
      await expect(authenticator().authenticate(presented)).rejects.toMatchObject({ code });
    });

    it('refuses a revoked key as not found and an expired one as expired', async () => {
      stored = { keyId: 'k1', tenantId: 't1', expiresAt: null, revokedAt: new Date(Date.now() - 1), tenantSuspendedAt: null };
      await expect(authenticator().authenticate(key)).rejects.toMatchObject({ code: AuthErrorCode.KeyNotFound });
      stored = { keyId: 'k1', tenantId: 't1', expiresAt: new Date(Date.now() - 1), revokedAt: null, tenantSuspendedAt: null };
      await expect(authenticator().authenticate(key)).rejects.toMatchObject({ code: AuthErrorCode.KeyExpired });
    });

    it('asks the repository once while the key is cached', async () => {
      const auth = authenticator();
      expect(await auth.authenticate(key)).toEqual({ tenantId: 't1', keyId: 'k1' });
      expect(await auth.authenticate(key)).toEqual({ tenantId: 't1', keyId: 'k1' });
      expect(lookups).toBe(1);
    });

    it('refuses a revoked key once the TTL since its lookup passed, however often it is used meanwhile', async () => {
      jest.useFakeTimers({ now: new Date('2026-11-26T00:00:00Z') });
      try {
        const auth = authenticator(1_000);
        await auth.authenticate(key);
        stored = { keyId: 'k1', tenantId: 't1', expiresAt: null, revokedAt: new Date(Date.now()), tenantSuspendedAt: null };
        for (let i = 0; i < 2; i++) {
          jest.advanceTimersByTime(400);
          await expect(auth.authenticate(key)).resolves.toEqual({ tenantId: 't1', keyId: 'k1' });
        }
        jest.advanceTimersByTime(400);
        await expect(auth.authenticate(key)).rejects.toMatchObject({ code: AuthErrorCode.KeyNotFound });
        expect(lookups).toBe(2);
      } finally {
        jest.useRealTimers();
      }
    });

    it('refuses a suspended tenant with AUTH011, and lets it in again once the cached record has aged out', async () => {
      jest.useFakeTimers({ now: new Date('2026-11-26T00:00:00Z') });
      try {
        const auth = authenticator(1_000);
        stored = { keyId: 'k1', tenantId: 't1', expiresAt: null, revokedAt: null, tenantSuspendedAt: new Date() };
        await expect(auth.authenticate(key)).rejects.toMatchObject({ code: 'AUTH011' });
        stored = { keyId: 'k1', tenantId: 't1', expiresAt: null, revokedAt: null, tenantSuspendedAt: null };
        await expect(auth.authenticate(key)).rejects.toMatchObject({ code: 'AUTH011' });
        jest.advanceTimersByTime(1_000);
        await expect(auth.authenticate(key)).resolves.toEqual({ tenantId: 't1', keyId: 'k1' });
        expect(lookups).toBe(2);
      } finally {
        jest.useRealTimers();
      }
    });

    it("records a key's use at most once a minute, whatever the key cache does", async () => {
      jest.useFakeTimers({ now: new Date('2026-11-26T00:00:00Z') });
      try {
        const auth = authenticator(0);
        await auth.authenticate(key);
        jest.advanceTimersByTime(59_999);
        await auth.authenticate(key);
        expect(usesRecorded).toEqual(['k1']);
        jest.advanceTimersByTime(1);
        await auth.authenticate(key);
        expect(usesRecorded).toEqual(['k1', 'k1']);
      } finally {
        jest.useRealTimers();
      }
    });

    it('asks every time when the cache is off', async () => {
      const auth = authenticator(0);
      await auth.authenticate(key);
      await auth.authenticate(key);
      expect(lookups).toBe(2);
    });
  });
});
