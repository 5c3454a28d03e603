/**
 * Metric names a PromQL expression reads. Not a parser: expressions must first pass `promtool check
 * rules`, which parses them; this strips what is not a metric name (strings, label matchers, label
 * lists of by/without/on/ignoring/group_*, ranges, Grafana variables, numbers, functions, keywords)
 * and keeps the identifiers left. A name it missed or invented would show as an unknown metric in
 * the tests that use it, never pass silently.
 */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
  'atan2',
]);

export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ')
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    if (match[1]) continue; // a function call
    const name = match[0];
    if (!KEYWORDS.has(name.toLowerCase())) names.add(name);
  }
  return [...names].sort();
}

/** The metric family a series name belongs to: a histogram's `_bucket`/`_sum`/`_count` map to its base name when it is one. */
export function familyOf(name: string, histograms: ReadonlySet<string>): string {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return base !== name && histograms.has(base) ? base : name;
}
