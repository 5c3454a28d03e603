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
});
