import type { BrowserIdentity } from './browser-identity';
import { IdentityGenerator, type IdentityRequest } from './identity-generator';

/** The engine the tests' identities claim (any real version would do). */
export const TEST_ENGINE = { major: 156, fullVersion: '156.0.8078.108' };

/** One generator for a test process: drawing is deterministic, so tests may share it. */
export const testIdentities = new IdentityGenerator(TEST_ENGINE);

/** A real drawn identity (deterministic for the same request), for tests that need one. */
export function testIdentity(request: Partial<IdentityRequest> = {}): BrowserIdentity {
  return testIdentities.identityFor({ tenantId: 'test-tenant', domain: 'shop.test', device: 'desktop', ...request });
}
