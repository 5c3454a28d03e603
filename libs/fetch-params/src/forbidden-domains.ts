/**
 * The operator's list of domains nobody may fetch (`FETCH_FORBIDDEN_DOMAINS`, spec §7 `REQS001`).
 * An entry forbids the name itself and every name under it (`example.com` forbids
 * `shop.example.com`), so listing a registrable domain closes the whole site.
 */
export class ForbiddenDomains {
  private readonly domains: ReadonlySet<string>;

  constructor(domains: readonly string[]) {
    this.domains = new Set(domains.map(normalise).filter((domain) => domain !== ''));
  }

  /** The list entry that forbids `hostname`, or `undefined` when it may be fetched. */
  match(hostname: string): string | undefined {
    if (this.domains.size === 0) return undefined;
    // Walk up the labels: a.b.example.com, b.example.com, example.com, com.
    for (let name = normalise(hostname); name !== '';) {
      if (this.domains.has(name)) return name;
      const dot = name.indexOf('.');
      name = dot < 0 ? '' : name.slice(dot + 1);
    }
    return undefined;
  }
}

/** Lowercase, without the root's trailing dot (`Example.COM.` and `example.com` are one name). */
function normalise(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}
