import { connect } from 'node:net';
import { trustRunCa } from './run-ca';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Integration and e2e suites need real Postgres and NATS; `make test` starts them first. */
export default async function globalSetup(): Promise<void> {
  for (const [name, port] of [
    ['PostgreSQL', 5432],
    ['NATS', 4222],
  ] as const) {
    if (!(await reachable(port))) {
      throw new Error(`${name} is not reachable on 127.0.0.1:${port}: run tools/ensure-services.sh (make test does)`);
    }
  }
  trustRunCa();
}
