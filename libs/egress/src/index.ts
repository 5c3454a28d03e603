export * from './errors';
export * from './host-map';
export * from './egress-policy';
export { createEgressAgent, type EgressAgentOptions } from './egress-agent';
export * from './safe-request';
export * from './url-normalization';
export { decodedBodyChunks, gunzippedWhenCompressed } from './response-body';
