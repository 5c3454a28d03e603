require('../tools/register-aliases.js');
const { Session } = require('node:inspector');
const fs = require('node:fs');
const { startFixtureWeb, fixtureHostMap } = require('../dist/test/fixtures/web');
const { createEgressAgent, EgressPolicy, parseHostMap } = require('@trawl/egress');
const { IdentityGenerator, parseEngineVersion } = require('../dist/apps/fetch-worker/src/identity');
const testIdentities = new IdentityGenerator(parseEngineVersion('131.0.6778.85'));
const { HttpEngine } = require('../dist/apps/fetch-worker/src/page-fetch/http-engine');
const { MapMetrics } = require('../dist/apps/fetch-worker/src/site-map/map.metrics');
const { SiteMapper } = require('../dist/apps/fetch-worker/src/site-map/site-mapper');
const { Registry } = require('prom-client');
(async () => {
  const web = await startFixtureWeb({ bigSitePages: 10 });
  const policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
  const http = new HttpEngine({ policy, agent: createEgressAgent(policy) });
  const mapper = new SiteMapper({ http, identities: testIdentities, maxPageBytes: 1e7, metrics: new MapMetrics(new Registry()) });
  const req = { v: 1, request_id: 'r', tenant_id: 't', url: web.url('big-map.test'), limit: 100000, include_subdomains: false, sitemap: 'only', timeout_ms: 30000 };
  await mapper.map(req, new AbortController().signal);
  const s = new Session(); s.connect();
  const post = (m, p) => new Promise((r, j) => s.post(m, p, (e, v) => (e ? j(e) : r(v))));
  await post('Profiler.enable'); await post('Profiler.start');
  const t0 = Date.now();
  for (let i = 0; i < 5; i++) { const o = await mapper.map(req, new AbortController().signal); JSON.stringify(o.result); }
  console.log('5 maps ms', Date.now() - t0);
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync('/tmp/map.cpuprofile', JSON.stringify(profile));
  await http.close(); await web.close();
})();
