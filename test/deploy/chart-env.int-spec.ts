import { crawlCoordinatorConfigSchema } from '../../apps/crawl-coordinator/src/config';
import { fetchWorkerConfigSchema } from '../../apps/fetch-worker/src/config';
import { gatewayConfigSchema } from '../../apps/gateway/src/config';
import { schedulerConfigSchema } from '../../apps/scheduler/src/config';
import { webhookDispatcherConfigSchema } from '../../apps/webhook-dispatcher/src/config';
import { Component, containerEnv, only, render } from './support/chart';

jest.setTimeout(60_000);

type Schema = { safeParse(input: unknown): { success: boolean; error?: { issues: unknown[] } } };
const SCHEMAS: Record<Component, Schema> = {
  gateway: gatewayConfigSchema,
  'crawl-coordinator': crawlCoordinatorConfigSchema,
  'fetch-worker': fetchWorkerConfigSchema,
  scheduler: schedulerConfigSchema,
  'webhook-dispatcher': webhookDispatcherConfigSchema,
};

/** Names of a zod object's keys, through the pipes and refinements wrapped around it. */
function keysOf(schema: any): string[] {
  const def = schema?._zod?.def ?? schema?._def;
  if (schema?.shape) return Object.keys(schema.shape);
  if (def?.in) return keysOf(def.in);
  if (def?.schema) return keysOf(def.schema);
  if (def?.innerType) return keysOf(def.innerType);
  throw new Error('not an object schema');
}

/** What a secret holds in a real installation, for the services' own config parsers. */
const SECRET_VALUES: Record<string, string> = {
  DATABASE_URL: 'postgres://trawl:secret@trawl-postgres-rw:5432/trawl',
  ADMIN_TOKEN: 'an-admin-token-of-enough-length',
  SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  PROXY_MODE_CA_CERT: '-----BEGIN CERTIFICATE-----',
  PROXY_MODE_CA_KEY: '-----BEGIN PRIVATE KEY-----',
};

describe('the environment the chart gives each service', () => {
  it.each(['defaults', 'ci/full-values.yaml'])(
    'names only variables the service reads, and the service accepts their values (%s)',
    async (values) => {
      const objects = await render(
        values === 'defaults' ? {} : { valuesFiles: [values], apiVersions: ['postgresql.cnpg.io/v1', 'keda.sh/v1alpha1'] },
      );
      for (const component of Object.keys(SCHEMAS) as Component[]) {
        const env = containerEnv(only(objects, 'Deployment', `trawl-${component}`));
        const known = keysOf(SCHEMAS[component]);
        // extraEnv is the operator's own business (e.g. NODE_OPTIONS); everything else must be read.
        const extra = new Set(['NODE_OPTIONS']);
        const unknown = [...env.keys()].filter((name) => !known.includes(name) && !extra.has(name));
        expect([component, unknown]).toEqual([component, []]);
        const input = Object.fromEntries([...env].map(([name, e]) => [name, e.value ?? SECRET_VALUES[name] ?? 'x'.repeat(40)]));
        const parsed = SCHEMAS[component].safeParse(input);
        expect([component, parsed.success ? [] : parsed.error?.issues]).toEqual([component, []]);
      }
    },
  );
});
