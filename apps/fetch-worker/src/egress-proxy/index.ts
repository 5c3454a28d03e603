export { EgressProxy, type EgressProxyOptions } from './egress-proxy';
export {
  EGRESS_REFUSAL_HEADER,
  ProxySession,
  type EgressFailure,
  type ProxySessionOptions,
  type ProxySessionStats,
  type UpstreamChooser,
} from './proxy-session';
export type { ProxyTarget } from './proxy-target';
