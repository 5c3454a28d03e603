import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentSdkTypes } from '../../tools/generate-sdk-types';
import { FINISHED_RUN_STATUSES, RUN_STATUSES } from '@trawl/contracts';
import { isRunFinished } from '@trawl/sdk';

// The SDK's types are generated from the document the gateway serves, which its zod contracts
// build: a contract changed without `npm run sdk:types` fails here, so the SDK cannot drift.
describe('SDK types', () => {
  it('are what the gateway’s OpenAPI document gives today', () => {
    const committed = readFileSync(join(__dirname, '..', '..', 'libs', 'sdk', 'src', 'generated', 'api-types.ts'), 'utf8');
    expect(committed).toBe(currentSdkTypes());
  });
});

describe("the SDK's run states", () => {
  it('ends a wait at exactly the run statuses the platform never leaves (FINISHED_RUN_STATUSES)', () => {
    expect(RUN_STATUSES.filter((status) => isRunFinished({ status }))).toEqual([...FINISHED_RUN_STATUSES]);
  });
});
