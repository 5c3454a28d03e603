/** The `SecretBox` sealing signing secrets, or `undefined` when `SECRETS_KEY` is not configured. */
export const SECRET_BOX = Symbol('SECRET_BOX');
/** The clock `webhook.test` events are dated by (injectable for tests). */
export const WEBHOOK_CLOCK = Symbol('WEBHOOK_CLOCK');
export type WebhookClock = () => Date;
