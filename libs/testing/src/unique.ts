import { randomBytes } from 'node:crypto';

/** A short lowercase id for names of test databases, streams and tenants, unique per call. */
export function uniqueSuffix(): string {
  return `${process.pid.toString(36)}${randomBytes(4).toString('hex')}`;
}
