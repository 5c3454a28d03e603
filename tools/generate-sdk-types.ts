import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gatewayOpenApiDocument } from '../apps/gateway/src/openapi/openapi.document';
import { openApiToTypeScript } from './sdk-types/openapi-to-typescript';

/** The SDK's types as the gateway's document gives them today. */
export function currentSdkTypes(): string {
  return openApiToTypeScript(gatewayOpenApiDocument());
}

// Run compiled, from the repository's root (`npm run sdk:types`).
if (require.main === module) {
  const file = resolve('libs', 'sdk', 'src', 'generated', 'api-types.ts');
  writeFileSync(file, currentSdkTypes());
  process.stdout.write(`wrote ${file}\n`);
}
