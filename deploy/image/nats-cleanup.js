// Deletes the JetStream streams (work queues, KV buckets) that the proof's services made under its
// NATS_PREFIX, and only those. Run inside the image, whose node_modules has the NATS client:
//   node nats-cleanup.js <nats-url> <prefix>
'use strict';
const { connect } = require('@nats-io/transport-node');
const { jetstreamManager } = require('@nats-io/jetstream');

async function main() {
  const [servers, prefix] = process.argv.slice(2);
  if (!servers || !/^[a-z][a-z0-9_]*$/.test(prefix ?? '')) throw new Error('usage: nats-cleanup.js <nats-url> <prefix>');
  // Stream names the topology derives from a prefix: `<PREFIX>_…`, `KV_<prefix>_…`, `OBJ_<prefix>_…`.
  const owned = [`${prefix.toUpperCase()}_`, `KV_${prefix}_`, `OBJ_${prefix}_`];
  const nc = await connect({ servers, name: 'trawl-image-proof-cleanup' });
  try {
    const jsm = await jetstreamManager(nc);
    const names = [];
    for await (const name of jsm.streams.names()) if (owned.some((p) => name.startsWith(p))) names.push(name);
    for (const name of names) await jsm.streams.delete(name);
    process.stdout.write(`deleted ${names.length} stream(s)${names.length ? `: ${names.join(', ')}` : ''}\n`);
  } finally {
    await nc.close();
  }
}

main().catch((error) => {
  process.stderr.write(`nats-cleanup: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
