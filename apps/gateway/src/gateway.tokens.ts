/** Injection tokens of the values the gateway's modules share (classes are injected by class). */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const LOGGER = Symbol('LOGGER');
export const MESSAGING = Symbol('MESSAGING');
