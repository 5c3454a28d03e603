import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { EXTERNAL_METRICS } from '../../deploy/monitoring/external-metrics';
import { metricNames } from '../../deploy/monitoring/promql-names';
import { promtool } from '../../deploy/monitoring/promtool';
import { REPO_ROOT, RULES_FILE, RULES_TEST_FILE, loadAlertRules, usedMetrics } from '../../deploy/monitoring/used-metrics';

const RUNBOOK_BASE = 'https://github.com/trawl-dev/trawl/blob/main/docs/runbooks.md';
const TRAWL_METRIC = /^(trawl_|http_request_duration_seconds_|nodejs_|process_)/;

/** The alerts every installation gets (issue: backlog, no worker, redeliveries, …, a service absent). */
const EXPECTED_ALERTS = [
  'TrawlJetStreamBacklogGrowing',
  'TrawlWorkPendingNoReadyWorker',
  'TrawlJetStreamRedeliveries',
  'TrawlFetchErrorRatioHigh',
  'TrawlFetchWorkersSaturated',
  'TrawlBrowserLaunchFailures',
  'TrawlWebhookFailureRatioHigh',
  'TrawlSchedulerLagging',
  'TrawlSchedulerNoLeader',
  'TrawlGatewayErrorRatioHigh',
  'TrawlGatewayLatencyHigh',
  'TrawlMigrationJobFailed',
  'TrawlServiceAbsent',
];

interface RuleTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
}

describe('Prometheus alert rules', () => {
  const rules = loadAlertRules();

  it('pass promtool check rules', async () => {
    expect(await promtool(['check', 'rules', RULES_FILE])).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it('fire on bad series and stay quiet on good ones (promtool test rules)', async () => {
    expect(await promtool(['test', 'rules', RULES_TEST_FILE])).toContain('SUCCESS');
  });

  it('are the expected alerts, each tested firing and quiet', () => {
    expect(rules.map((r) => r.alert)).toEqual(EXPECTED_ALERTS);
    const cases = (parse(readFileSync(RULES_TEST_FILE, 'utf8')) as RuleTests).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const alert of EXPECTED_ALERTS) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect({
        alert,
        fires: mine.some((c) => (c.exp_alerts ?? []).length > 0),
        quiet: mine.some((c) => (c.exp_alerts ?? []).length === 0),
      }).toEqual({
        alert,
        fires: true,
        quiet: true,
      });
    }
  });

  it('have a for, a severity, a summary, a description and a runbook link whose anchor docs/runbooks.md has', () => {
    const runbooks = readFileSync(join(REPO_ROOT, 'docs', 'runbooks.md'), 'utf8');
    const anchors = new Set([...runbooks.matchAll(/^## (\S+)\s*$/gm)].map((m) => m[1].toLowerCase()));
    for (const rule of rules) {
      expect({ alert: rule.alert, for: rule.for }).toEqual({ alert: rule.alert, for: expect.stringMatching(/^\d+[smh]$/) });
      expect(['critical', 'warning']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      const anchor = rule.alert.toLowerCase();
      expect(rule.annotations?.runbook_url).toBe(`${RUNBOOK_BASE}#${anchor}`);
      expect({ alert: rule.alert, inRunbooks: anchors.has(anchor) }).toEqual({ alert: rule.alert, inRunbooks: true });
    }
  });

  it("name only Trawl's own metrics or external ones listed with their source", () => {
    const unknown = rules.flatMap((rule) =>
      metricNames(rule.expr)
        .filter((name) => !TRAWL_METRIC.test(`${name}_`) && !(name in EXTERNAL_METRICS))
        .map((name) => `${rule.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('list no external metric that nothing uses', () => {
    const used = usedMetrics();
    expect(Object.keys(EXTERNAL_METRICS).filter((name) => !used.has(name))).toEqual([]);
  });
});
