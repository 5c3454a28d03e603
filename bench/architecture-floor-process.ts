/**
 * One half of the architecture floor (see architecture-floor.ts), run as its own process:
 *   node architecture-floor-process.js front <subject>   an HTTP server that sends `?url=` as a core
 *                                                        NATS request and answers with the reply;
 *   node architecture-floor-process.js back <subject> <host=address,…>
 *                                                        a queue-group member that fetches the URL
 *                                                        with undici over keep-alive and replies.
 * It prints one JSON line (`{"port":…}` or `{"ready":true}`) once it serves.
 *
 * Nothing else on purpose: no auth, limits, billing, validation, headers, tracing or metrics, so
 * that what it costs is the hops themselves (client, HTTP, NATS, worker, site and back) on this
 * machine. It is a bench baseline, never a product path: the back fetches any URL it is given.
 */
import { createServer } from 'node:http';
import { connect } from '@nats-io/transport-node';
import { Agent, request } from 'undici';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

async function front(subject: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL, name: 'architecture-floor-front' });
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://floor').searchParams.get('url') ?? '';
    nc.request(subject, Buffer.from(target), { timeout: 30_000 }).then(
      (reply) => {
        // The back replies empty when its fetch failed (the fixture pages never are).
        res.writeHead(reply.data.length > 0 ? 200 : 502, { 'content-type': 'text/html' });
        res.end(Buffer.from(reply.data));
      },
      (error: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
  });
}

async function back(subject: string, hostMap: string): Promise<void> {
  // The fixture hosts resolve as Trawl's worker resolves them (EGRESS_HOST_MAP), without a lookup.
  const addresses = new Map(
    hostMap
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=') as [string, string]),
  );
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const nc = await connect({ servers: NATS_URL, name: 'architecture-floor-back' });
  nc.subscribe(subject, {
    queue: 'floor',
    callback: (error, msg) => {
      if (error) return;
      const url = new URL(Buffer.from(msg.data).toString());
      const host = url.host;
      url.hostname = addresses.get(url.hostname) ?? url.hostname;
      request(url, { dispatcher: agent, headers: { host } })
        .then((res) => res.body.arrayBuffer())
        .then(
          (body) => msg.respond(new Uint8Array(body)),
          () => msg.respond(new Uint8Array(0)),
        );
    },
  });
  await nc.flush();
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
}

const [role, subject = '', hostMap = ''] = process.argv.slice(2);
(role === 'front' ? front(subject) : role === 'back' ? back(subject, hostMap) : Promise.reject(new Error(`unknown role "${role}"`))).catch(
  (error: unknown) => {
    process.stderr.write(`architecture floor ${role}: ${String(error)}\n`);
    process.exit(1);
  },
);
