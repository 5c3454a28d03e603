import type { MessagingConnection } from '@trawl/messaging';

export const MESSAGING = Symbol('MESSAGING');

/** The coordinator's NATS connection (JetStream client included). */
export type CoordinatorMessaging = MessagingConnection;
