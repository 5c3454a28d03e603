import { K8sObject } from './chart';

/** A NetworkPolicy peer (`from` entry) as rendered. */
export type Peer = Record<string, unknown>;

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/** Whether a label selector selects a pod with these labels (an empty selector selects every pod). */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    switch (operator) {
      case 'In':
        return key in labels && values.includes(labels[key]);
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key]);
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
    }
  });
  return byLabel && byExpression;
}

/**
 * Who the NetworkPolicies among `objects` let reach a pod's TCP port, as Kubernetes adds their
 * ingress rules up: 'anyone' when a rule that covers the port names no peers, the peers of every
 * covering rule otherwise, none when no policy selects the pod for ingress (not isolated: anyone).
 * A port is given by its container port name and number, as a rule may name either.
 */
export function admittedPeers(
  objects: K8sObject[],
  podLabels: Record<string, string>,
  port: { name: string; number: number },
): Peer[] | 'anyone' {
  const policies = objects.filter(
    (o) => o.kind === 'NetworkPolicy' && o.spec.policyTypes.includes('Ingress') && selects(o.spec.podSelector, podLabels),
  );
  if (policies.length === 0) return 'anyone';
  const peers: Peer[] = [];
  for (const policy of policies) {
    for (const rule of (policy.spec.ingress ?? []) as { ports?: { port?: string | number; protocol?: string }[]; from?: Peer[] }[]) {
      const covers =
        !rule.ports?.length ||
        rule.ports.some((p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === undefined || p.port === port.name || p.port === port.number));
      if (!covers) continue;
      if (!rule.from?.length) return 'anyone';
      peers.push(...rule.from);
    }
  }
  return peers;
}
