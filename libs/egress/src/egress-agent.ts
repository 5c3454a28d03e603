import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { EgressPolicy } from './egress-policy';

export interface EgressAgentOptions {
  /** Maximum sockets per origin. Default: unlimited (undici's default). */
  connections?: number;
  /** Time to establish TCP (and TLS), in ms. Default: 10,000. */
  connectTimeoutMs?: number;
  /** How long an idle pooled socket is kept, in ms. Default: 4,000 (undici's default). */
  keepAliveTimeoutMs?: number;
}

// Which policy an agent enforces, so safeRequest can tell an egress agent from a plain one.
const agentPolicies = new WeakMap<Agent, EgressPolicy>();

/**
 * An undici Agent (keep-alive pooling on) whose every connection resolves its host through
 * `policy`, so the address checked is the address connected to: a name cannot answer "public" at
 * validation and "private" at connect time. Node never calls `lookup` for a literal IP host, so
 * literals (and redirect hops) must be checked by the caller: `safeRequest` does.
 */
export function createEgressAgent(policy: EgressPolicy, options: EgressAgentOptions = {}): Agent {
  const agent = new Agent({
    connections: options.connections ?? null,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    connect: { timeout: options.connectTimeoutMs ?? 10_000, lookup: policyLookup(policy) },
  });
  agentPolicies.set(agent, policy);
  return agent;
}

/** True when `agent` came from `createEgressAgent(policy)`. */
export function enforcesPolicy(agent: Agent, policy: EgressPolicy): boolean {
  return agentPolicies.get(agent) === policy;
}

function policyLookup(policy: EgressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolveAll(hostname).then(
      (answers) => {
        // net asks for all answers when it races address families (autoSelectFamily).
        if (options.all) callback(null, answers);
        else callback(null, answers[0].address, answers[0].family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}
