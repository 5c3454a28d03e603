/** Additional data a key's sealed secret is bound to: its tenant and kid (see `SecretBox`). */
export function signingKeyContext(tenantId: string, kid: string): string {
  return `webhook-signing-key:${tenantId}:${kid}`;
}
