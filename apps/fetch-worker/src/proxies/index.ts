export { ProxyError, ProxyErrorCode } from './proxy.errors';
export { describeProxyPools, parseProxyPools, redactProxyUrl, type ProxyEndpoint, type ProxyPools } from './proxy-pools';
export { ProxyRouter, type FetchTier, type ProxyChoice, type ProxyRouteRequest } from './proxy-router';
export { NatsSessionBindings, SESSION_STICKINESS_MS, type SessionBindings } from './session-bindings';
export { createUpstreamAgent, UpstreamAgents, type UpstreamAgentOptions } from './upstream-agent';
export { proxyConfigShape } from './proxies.config';
