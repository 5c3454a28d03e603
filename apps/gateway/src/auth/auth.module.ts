import { Module } from '@nestjs/common';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeysRepository } from './api-keys.repository';

/** API key authentication; the hook that applies it is installed by `configureGatewayApp`. */
@Module({
  providers: [ApiKeyAuthenticator, ApiKeysRepository],
  exports: [ApiKeyAuthenticator],
})
export class AuthModule {}
