/**
 * What a site's robots.txt says to a preparation: the paths it may fetch, its sitemaps, and the
 * delay it asks for. Groups for `*` and for our own agent token apply (the most specific group
 * wins, as Google and RFC 9309 read it); within a group the longest matching rule wins, `Allow` on a tie.
 */
export interface SiteRules {
  allows(path: string): boolean;
  sitemaps: string[];
  /** `Crawl-delay` in ms, when given. */
  crawlDelayMs?: number;
}

interface Rule {
  allow: boolean;
  pattern: RegExp;
  length: number;
}

/** No robots.txt (404, or unreadable): everything is allowed. */
export const OPEN_SITE: SiteRules = { allows: () => true, sitemaps: [] };

export function parseRobotsTxt(text: string, agentToken: string): SiteRules {
  const groups: { agents: string[]; rules: Rule[]; delayMs?: number }[] = [];
  const sitemaps: string[] = [];
  let current: (typeof groups)[number] | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
      continue;
    }
    if (key === 'user-agent') {
      if (!lastWasAgent || !current) groups.push((current = { agents: [], rules: [] }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if ((key === 'allow' || key === 'disallow') && value !== '') {
      current.rules.push({ allow: key === 'allow', pattern: pathPattern(value), length: value.length });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.delayMs = Math.round(seconds * 1000);
    }
  }
  const token = agentToken.toLowerCase();
  const group = groups.find((g) => g.agents.some((a) => a !== '*' && token.includes(a))) ?? groups.find((g) => g.agents.includes('*'));
  const rules = group?.rules ?? [];
  return {
    sitemaps,
    ...(group?.delayMs !== undefined && { crawlDelayMs: group.delayMs }),
    allows(path: string): boolean {
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!rule.pattern.test(path)) continue;
        if (!best || rule.length > best.length || (rule.length === best.length && rule.allow)) best = rule;
      }
      return best?.allow ?? true;
    },
  };
}

/** `*` matches any run of characters, a final `$` anchors the end; the rest is literal. */
function pathPattern(value: string): RegExp {
  const anchored = value.endsWith('$');
  const body = (anchored ? value.slice(0, -1) : value)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}

/** `<loc>` entries of a sitemap or sitemap index (the caller tells them apart by `isIndex`). */
export function parseSitemap(xml: string): { isIndex: boolean; locations: string[] } {
  const isIndex = /<sitemapindex[\s>]/i.test(xml);
  const locations: string[] = [];
  for (const match of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?([^<\]]+?)(?:\]\]>)?\s*<\/loc>/gi)) {
    locations.push(match[1].replace(/&amp;/g, '&').trim());
  }
  return { isIndex, locations };
}
