import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { TrawlAbortError, TrawlApiError, TrawlConnectionError, TrawlTimeoutError } from '@trawl/sdk';
import { CliError } from './cli-error';
import { EXIT_CODE_TABLE, exitCodeOf, outcomeOf, outcomeOfStatus } from './exit-codes';
import { reportOf } from './report-failure';

function apiError(status: number, problem: Record<string, unknown> = {}): TrawlApiError {
  return new TrawlApiError(status, problem, { method: 'GET', path: '/v1/crawls/x' });
}

describe('exitCodeOf', () => {
  it('gives the documented code of each outcome', () => {
    expect(EXIT_CODE_TABLE.map(({ outcome }) => [outcome, exitCodeOf(outcome)])).toEqual([
      ['ok', 0],
      ['unexpected', 1],
      ['usage', 2],
      ['refused', 3],
      ['auth', 4],
      ['limit', 5],
      ['unavailable', 6],
      ['work_failed', 7],
      ['interrupted', 130],
    ]);
  });

  it('gives every outcome a code of its own and a meaning', () => {
    expect(new Set(EXIT_CODE_TABLE.map(({ code }) => code)).size).toBe(EXIT_CODE_TABLE.length);
    expect(EXIT_CODE_TABLE.every(({ meaning }) => meaning.length > 10)).toBe(true);
  });
});

describe('outcomeOf', () => {
  it.each([
    [401, 'AUTH003', 'auth'],
    [403, 'BLK0001', 'auth'],
    [402, 'AUTH005', 'auth'],
    [402, 'USG0001', 'limit'],
    [429, 'quota_exceeded', 'limit'],
    [400, 'REQS002', 'refused'],
    [404, 'crawl_not_found', 'refused'],
    [409, 'job_closed', 'refused'],
    [422, 'invalid_start_url', 'refused'],
    [500, 'internal_error', 'unavailable'],
    [503, 'RESP009', 'unavailable'],
  ])('maps an API answer %i %s to %s', (status, code, outcome) => {
    expect(outcomeOf(apiError(status, { code }))).toBe(outcome);
    expect(outcomeOfStatus(status, code)).toBe(outcome);
  });

  it("maps the SDK's other errors: connection and timeout to unavailable, abort to interrupted", () => {
    expect(outcomeOf(new TrawlConnectionError('GET /v1/: fetch failed', { cause: new Error('ECONNREFUSED') }))).toBe('unavailable');
    expect(outcomeOf(new TrawlTimeoutError('gave up'))).toBe('unavailable');
    expect(outcomeOf(new TrawlAbortError())).toBe('interrupted');
  });

  it("maps the CLI's own errors by kind", () => {
    expect(outcomeOf(CliError.usage('bad'))).toBe('usage');
    expect(outcomeOf(new CliError('no_api_key', 'no_api_key', 'none'))).toBe('auth');
    expect(outcomeOf(new CliError('work_failed', 'seed_unreachable', 'crawl x failed'))).toBe('work_failed');
    expect(outcomeOf(new CliError('interrupted', 'interrupted', 'stopped'))).toBe('interrupted');
  });

  it("takes --help and --version as success, and commander's other errors as usage errors", () => {
    expect(outcomeOf(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe('ok');
    expect(outcomeOf(new CommanderError(0, 'commander.version', '0.1.0'))).toBe('ok');
    expect(outcomeOf(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--nope'"))).toBe('usage');
  });

  it('takes anything else as unexpected', () => {
    expect(outcomeOf(new TypeError('undefined is not a function'))).toBe('unexpected');
    expect(outcomeOf('a string')).toBe('unexpected');
  });
});

describe('reportOf', () => {
  it('tells an API error as trawl: <code>: <detail> with its instance, and keeps the problem for --json', () => {
    const report = reportOf(
      apiError(404, {
        type: 'about:blank',
        title: 'Crawl not found',
        status: 404,
        code: 'crawl_not_found',
        detail: 'No crawl x.',
        instance: '/v1/crawls/x',
      }),
    );
    expect(report.text).toBe('trawl: crawl_not_found: No crawl x. (instance /v1/crawls/x)');
    expect(report.problem).toEqual({
      type: 'about:blank',
      title: 'Crawl not found',
      status: 404,
      code: 'crawl_not_found',
      detail: 'No crawl x.',
      instance: '/v1/crawls/x',
      exit_code: 3,
    });
    expect(report.exitCode).toBe(3);
  });

  it('tells an answer that was not problem+json by its status', () => {
    expect(reportOf(apiError(502, { detail: 'Bad Gateway' })).text).toBe('trawl: http_502: Bad Gateway');
  });

  it("tells the CLI's errors and commander's usage errors the same way", () => {
    expect(reportOf(CliError.usage('cannot read urls.csv')).text).toBe('trawl: usage: cannot read urls.csv');
    expect(reportOf(new CommanderError(1, 'commander.missingArgument', "error: missing required argument 'url'")).text).toBe(
      "trawl: usage: missing required argument 'url' (see --help)",
    );
    expect(reportOf(new TrawlConnectionError('GET /v1/: fetch failed', { cause: undefined }))).toMatchObject({
      text: 'trawl: unavailable: GET /v1/: fetch failed',
      exitCode: 6,
    });
  });

  it("says nothing after --help, or after commander showed a group's help in place of a missing subcommand", () => {
    expect(reportOf(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toMatchObject({ text: undefined, exitCode: 0 });
    expect(reportOf(new CommanderError(1, 'commander.help', '(outputHelp)'))).toMatchObject({ text: undefined, exitCode: 2 });
  });
});

describe('docs/cli.md', () => {
  it('lists the exit codes of EXIT_CODE_TABLE, with the same meanings', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'cli.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Exit codes'));
    const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((match) => ({ code: Number(match[1]), meaning: match[2] }));
    expect(rows).toEqual(EXIT_CODE_TABLE.map(({ code, meaning }) => ({ code, meaning })));
  });
});
