import { z } from 'zod';
import { SecretBox } from './secret-box';

/**
 * `SECRETS_KEY` in an app's config schema: base64 of exactly 32 bytes, parsed into a `SecretBox`
 * (never logged), or `undefined` when unset.
 */
export const secretsKeyEnv = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined || value === '') return undefined;
    if (Buffer.from(value, 'base64').length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'must be the base64 of exactly 32 bytes' });
      return z.NEVER;
    }
    return SecretBox.fromBase64(value);
  });
