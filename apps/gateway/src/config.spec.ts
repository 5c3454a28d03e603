import { ConfigError } from '@trawl/config';
import { loadGatewayConfig } from './config';

const ADMIN_TOKEN = 'test-admin-token-0123456789';

describe(loadGatewayConfig.name, () => {
  it('keeps file transfers below the connection pool, naming the variable', () => {
    expect(loadGatewayConfig({ ADMIN_TOKEN }).FILE_TRANSFERS_MAX).toBe(4);
    // Unset, it follows a smaller pool: half of it.
    expect(loadGatewayConfig({ ADMIN_TOKEN, DATABASE_POOL_SIZE: '4' }).FILE_TRANSFERS_MAX).toBe(2);
    expect(loadGatewayConfig({ ADMIN_TOKEN, DATABASE_POOL_SIZE: '1' }).FILE_TRANSFERS_MAX).toBe(1);
    expect(loadGatewayConfig({ ADMIN_TOKEN, DATABASE_POOL_SIZE: '3', FILE_TRANSFERS_MAX: '2' }).FILE_TRANSFERS_MAX).toBe(2);
    const load = () => loadGatewayConfig({ ADMIN_TOKEN, DATABASE_POOL_SIZE: '4', FILE_TRANSFERS_MAX: '4' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/FILE_TRANSFERS_MAX.*must be below DATABASE_POOL_SIZE \(4\)/);
  });

  it('keeps the operator surface off the public port', () => {
    expect(loadGatewayConfig({ ADMIN_TOKEN })).toMatchObject({ PORT: 8080, ADMIN_PORT: 8085 });
    expect(() => loadGatewayConfig({ ADMIN_TOKEN, PORT: '9000', ADMIN_PORT: '9000' })).toThrow(/ADMIN_PORT.*must differ from PORT/);
    // Both ephemeral (tests): the OS gives two ports.
    expect(loadGatewayConfig({ ADMIN_TOKEN, PORT: '0', ADMIN_PORT: '0' })).toMatchObject({ PORT: 0, ADMIN_PORT: 0 });
  });
});
