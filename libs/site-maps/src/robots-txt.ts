/** Bytes of a robots.txt that are read (RFC 9309 §2.5: at least 500 KiB; the rest is ignored). */
export const ROBOTS_TXT_MAX_BYTES = 500 * 1024;

/** What a robots.txt says to one crawler (its group, or the `*` group). */
export interface RobotsRules {
  /** Whether the crawler may fetch `url` (path and query are matched; `/robots.txt` always may). */
  allows(url: URL): boolean;
  /** The group's `Crawl-delay`, in seconds; undefined when it gives none (or one that is not a number ≥ 0). */
  crawlDelaySeconds: number | undefined;
}

/** A parsed robots.txt (RFC 9309, with Google's and Bing's `Crawl-delay` and `Sitemap` extensions). */
export interface RobotsTxt {
  /** Absolute URLs of the `Sitemap:` lines, in order, as written (they apply to the whole file, not a group). */
  sitemaps: string[];
  /** The rules for the crawler whose product token is `userAgent` (case-insensitive). */
  rulesFor(userAgent: string): RobotsRules;
}

interface Rule {
  allow: boolean;
  /** The path pattern as written, percent-encoded where needed. */
  pattern: string;
  /** The pattern as a matcher, built on first use. */
  matcher?: RegExp | string;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelaySeconds?: number;
}

const ALLOW_ALL: RobotsRules = { allows: () => true, crawlDelaySeconds: undefined };
const DISALLOW_ALL: RobotsRules = { allows: (url) => url.pathname === '/robots.txt', crawlDelaySeconds: undefined };

/**
 * A robots.txt that allows everything: what a site without one (a 4xx answer, RFC 9309 §2.3.1.3)
 * says.
 */
export function robotsAllowingAll(): RobotsTxt {
  return { sitemaps: [], rulesFor: () => ALLOW_ALL };
}

/**
 * A robots.txt that allows nothing: what RFC 9309 §2.3.1.4 has a crawler assume while a site's
 * robots.txt cannot be read (a 5xx answer, or no answer).
 */
export function robotsDisallowingAll(): RobotsTxt {
  return { sitemaps: [], rulesFor: () => DISALLOW_ALL };
}

/**
 * Parses a robots.txt. Lenient as crawlers are: unknown lines are skipped, field names are
 * case-insensitive, a `user-agent` line after rules starts a new group, groups for the same agent
 * are merged, and only the first `ROBOTS_TXT_MAX_BYTES` are read.
 */
export function parseRobotsTxt(text: string): RobotsTxt {
  const sitemaps: string[] = [];
  const groups: Group[] = [];
  let current: Group | undefined;
  let inAgentLines = false;
  for (const rawLine of text.slice(0, ROBOTS_TXT_MAX_BYTES).split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = (hash === -1 ? rawLine : rawLine.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    switch (field) {
      case 'user-agent':
        if (!inAgentLines || !current) {
          current = { agents: [], rules: [] };
          groups.push(current);
        }
        current.agents.push(value.toLowerCase());
        inAgentLines = true;
        break;
      case 'allow':
      case 'disallow':
        inAgentLines = false;
        // An empty Disallow allows everything: it adds nothing to match.
        if (current && value !== '') current.rules.push({ allow: field === 'allow', pattern: encodePattern(value) });
        break;
      case 'crawl-delay': {
        inAgentLines = false;
        const seconds = Number(value);
        if (current && value !== '' && Number.isFinite(seconds) && seconds >= 0) current.crawlDelaySeconds = seconds;
        break;
      }
      case 'sitemap':
        // Not part of a group (RFC 9309 §2.2.4): it does not end the user-agent lines.
        if (value !== '') sitemaps.push(value);
        break;
      default:
        break;
    }
  }
  return { sitemaps, rulesFor: (userAgent) => rulesOf(groups, userAgent.toLowerCase()) };
}

/** RFC 9309 §2.2.1: the groups naming the crawler's token, merged; else the `*` groups; else none. */
function rulesOf(groups: Group[], token: string): RobotsRules {
  let chosen = groups.filter((group) => group.agents.includes(token));
  if (chosen.length === 0) chosen = groups.filter((group) => group.agents.includes('*'));
  if (chosen.length === 0) return ALLOW_ALL;
  const rules = chosen.flatMap((group) => group.rules);
  const delays = chosen.map((group) => group.crawlDelaySeconds).filter((delay): delay is number => delay !== undefined);
  return {
    allows: (url) => url.pathname === '/robots.txt' || allows(rules, url.pathname + url.search),
    crawlDelaySeconds: delays.length === 0 ? undefined : Math.max(...delays),
  };
}

/** RFC 9309 §2.2.2: the longest matching pattern decides; between an allow and a disallow as long, allow. */
function allows(rules: Rule[], path: string): boolean {
  let best: Rule | undefined;
  for (const rule of rules) {
    if (!matches(rule, path)) continue;
    if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
  }
  return best?.allow ?? true;
}

function matches(rule: Rule, path: string): boolean {
  rule.matcher ??= matcherOf(rule.pattern);
  return typeof rule.matcher === 'string' ? path.startsWith(rule.matcher) : rule.matcher.test(path);
}

/** A prefix, or (with `*` anywhere or `$` at the end) an anchored expression. */
function matcherOf(pattern: string): RegExp | string {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  if (!anchored && !body.includes('*')) return body;
  const source = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`);
}

/**
 * Paths are compared as URLs carry them (RFC 9309 §2.2.2): characters a URL escapes are escaped in
 * the pattern, escapes already there are upper-cased, `*` and `$` stay special.
 */
function encodePattern(pattern: string): string {
  return pattern
    .replace(/%[0-9a-fA-F]{2}/g, (escape) => escape.toUpperCase())
    .replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char));
}

/**
 * The product token Trawl's crawler answers to in robots.txt: a group for `Trawl` (any case) rules
 * it, else the `*` group.
 */
export const ROBOTS_AGENT_TOKEN = 'trawl';
