export { ProxyError, ProxyErrorCode } from './proxy.errors';
export { describeProxyPools, parseProxyPools, redactProxyUrl, type ProxyEndpoint, type ProxyPools } from './proxy-pools';
export { ProxyRouter, type FetchTier, type ProxyChoice, type ProxyRouteRequest } from './proxy-router';
export { NatsSessionBindings, type SessionBindings } from './session-bindings';
export { UpstreamAgents, type UpstreamAgentOptions } from './upstream-agent';
export { proxyConfigShape } from './proxies.config';
