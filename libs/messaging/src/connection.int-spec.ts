import { once } from 'node:events';
import { AddressInfo, createServer } from 'node:net';
import { waitFor } from '@trawl/testing';
import { connectForTests, CuttableProxy } from '../test/jetstream-fixture';
import { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';

describe(MessagingConnection.name, () => {
  describe('connect', () => {
    it('connects with JetStream ready, and closes once however often close is called', async () => {
      const conn = await connectForTests('messaging-connection-test');
      expect(conn.isConnected()).toBe(true);
      await conn.jsm.getAccountInfo();
      await Promise.all([conn.close(), conn.close()]);
      await conn.close();
      expect(conn.isConnected()).toBe(false);
    });

    it('fails with messaging_connect_failed, without the password, when no server answers in time', async () => {
      const nothing = createServer();
      nothing.listen(0, '127.0.0.1');
      await once(nothing, 'listening');
      const { port } = nothing.address() as AddressInfo;
      await new Promise((resolve) => nothing.close(resolve));

      const started = Date.now();
      const error = await MessagingConnection.connect({
        servers: `nats://trawl:s3cret@127.0.0.1:${port}`,
        name: 'messaging-connection-test',
        connectTimeoutMs: 1_500,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessagingError);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.ConnectFailed);
      expect((error as MessagingError).message).not.toContain('s3cret');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('keeps retrying the first connect until the server comes up', async () => {
      const proxy = new CuttableProxy();
      await proxy.listen();
      await proxy.cut();
      const connecting = MessagingConnection.connect({ servers: `nats://127.0.0.1:${proxy.port}`, name: 'messaging-connection-test' });
      setTimeout(() => void proxy.listen(), 1_000);
      const conn = await connecting;
      try {
        expect(conn.isConnected()).toBe(true);
      } finally {
        await conn.close();
        await proxy.cut();
      }
    });
  });

  describe('isConnected', () => {
    it('turns false while the connection is lost and true again once the client reconnected', async () => {
      const proxy = new CuttableProxy();
      await proxy.listen();
      const conn = await MessagingConnection.connect({ servers: `nats://127.0.0.1:${proxy.port}`, name: 'messaging-connection-test' });
      try {
        expect(conn.isConnected()).toBe(true);
        await proxy.cut();
        await waitFor(() => !conn.isConnected(), { what: 'disconnect to be noticed' });
        await proxy.listen();
        await waitFor(() => conn.isConnected(), { what: 'reconnect' });
        await conn.jsm.getAccountInfo();
      } finally {
        await conn.close();
        await proxy.cut();
      }
    });
  });

  describe('whenConnected', () => {
    it('answers false while the connection is lost, and true as soon as the client reconnected', async () => {
      const proxy = new CuttableProxy();
      await proxy.listen();
      const conn = await MessagingConnection.connect({ servers: `nats://127.0.0.1:${proxy.port}`, name: 'messaging-connection-test' });
      try {
        expect(await conn.whenConnected(0)).toBe(true);
        await proxy.cut();
        await waitFor(() => !conn.isConnected(), { what: 'disconnect to be noticed' });
        expect(await conn.whenConnected(200)).toBe(false);
        const reconnected = conn.whenConnected(20_000);
        await proxy.listen();
        expect(await reconnected).toBe(true);
      } finally {
        await conn.close();
        await proxy.cut();
      }
      expect(await conn.whenConnected(1_000)).toBe(false);
    });
  });
});
