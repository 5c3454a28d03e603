import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { deleteStreams, MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';
import { closeAll, FixtureProxy, startFixtureProxies } from '../../../../test/fixtures/proxies';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../../test/fixtures/web';
import { CaptchaPass } from '../../src/captcha/captcha-pass';
import { CaptchaSolverClient } from '../../src/captcha/captcha-solver.client';
import { HttpFetchEngine } from '../../src/target-fetch/http-fetch-engine';
import { TargetFetcher } from '../../src/target-fetch/target-fetcher';
import { HttpEngine } from '../../src/page-fetch/http-engine';
import { NatsSessionBindings, parseProxyPools, ProxyRouter, UpstreamAgents } from '../../src/proxies';
import { AdaptiveFetcher, NatsDomainTierMemory } from '../../src/stealth';
import { testIdentities } from '../../src/identity/identity.test-support';

/**
 * The Fetch API's tiers on the HTTP engine against real things: the fixture web, fixture forward
 * proxies as the upstream pools, session bindings and adaptive stealth's memory in NATS KV buckets
 * of the suite's own (removed after it).
 */
export interface HttpTierStack {
  web: FixtureWeb;
  proxies: Record<string, FixtureProxy>;
  /** The worker's HTTP engine (behind `target`'s plain tiers). */
  http: HttpEngine;
  target: TargetFetcher;
  memory: NatsDomainTierMemory;
}

/**
 * Registers the suite's hooks: the stack started before it, stopped after. `pools` is the
 * `PROXY_POOLS` value for the started proxies (named as `proxyNames`).
 */
export function httpTierStack(name: string, proxyNames: string[], pools: (proxies: Record<string, FixtureProxy>) => string): HttpTierStack {
  const stack = {} as HttpTierStack;
  const buckets = [`${name}${uniqueSuffix()}_sessions`, `${name}${uniqueSuffix()}_tiers`];
  let messaging: MessagingConnection | undefined;
  let upstream: UpstreamAgents | undefined;
  beforeAll(async () => {
    stack.web = await startFixtureWeb({ bigSitePages: 10 });
    stack.proxies = await startFixtureProxies(proxyNames);
    messaging = await MessagingConnection.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name });
    const policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
    const agent = createEgressAgent(policy);
    stack.http = new HttpEngine({ policy, agent });
    upstream = new UpstreamAgents(policy);
    const proxies = new ProxyRouter(
      parseProxyPools(pools(stack.proxies)),
      await NatsSessionBindings.open(messaging.js, buckets[0]!, 60_000),
    );
    stack.memory = await NatsDomainTierMemory.open(messaging.js, buckets[1]!, 60_000);
    stack.target = new TargetFetcher({
      engines: { http: new HttpFetchEngine(stack.http, upstream) },
      identities: testIdentities,
      captcha: new CaptchaPass(new CaptchaSolverClient({ policy, agent })),
      proxies,
      stealth: new AdaptiveFetcher({ memory: stack.memory }),
    });
  });
  afterAll(async () => {
    await upstream?.close();
    await stack.http?.close();
    await closeAll(stack.proxies ?? {});
    await stack.web?.close();
    if (messaging) {
      await deleteStreams(
        messaging.jsm,
        buckets.map((bucket) => `KV_${bucket}`),
      );
      await messaging.close();
    }
  });
  return stack;
}
