import { closeAll, FixtureProxy, startFixtureProxies } from '../fixtures/proxies';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { Platform, type ServiceName } from './platform';

/** The platform with every Fetch tier: one real Chromium in the worker, a standard and a premium fixture proxy pool. */
export interface TiersPlatform {
  web: FixtureWeb;
  proxies: Record<'standard' | 'premium-a', FixtureProxy>;
  platform: Platform;
}

/** Registers the suite's hooks: the fixture web, the proxies and `services` started before it, stopped after. */
export function tiersPlatform(name: string, services: ServiceName[]): TiersPlatform {
  const stack = {} as TiersPlatform;
  beforeAll(async () => {
    stack.web = await startFixtureWeb({ bigSitePages: 10 });
    stack.proxies = (await startFixtureProxies(['standard', 'premium-a'])) as TiersPlatform['proxies'];
    stack.platform = new Platform(name, {
      hostMap: fixtureHostMap(),
      services,
      env: {
        // Proxy mode has suites of its own; its fixed port would clash with suites running beside.
        gateway: { PROXY_MODE_ENABLED: 'false' },
        'fetch-worker': {
          BROWSERS: '1',
          PAGES_PER_BROWSER: '4',
          PROXY_POOLS: `standard=${stack.proxies.standard.url};premium=${stack.proxies['premium-a'].url}`,
        },
      },
    });
    await stack.platform.start();
  }, 120_000);
  afterAll(async () => {
    await stack.platform?.stop();
    await closeAll(stack.proxies ?? {});
    await stack.web?.close();
  }, 60_000);
  return stack;
}
