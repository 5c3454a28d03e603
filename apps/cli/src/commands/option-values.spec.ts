import { Command, InvalidArgumentError } from 'commander';
import { csvInputOf } from './batch';
import { collectParam, nonNegativeInteger, positiveInteger } from './option-values';
import { addScrapeOptions, scrapeParams } from './scrape-options';

describe('positiveInteger', () => {
  it('takes whole numbers of at least 1 and refuses anything else', () => {
    expect(positiveInteger('2000')).toBe(2000);
    for (const bad of ['0', '-1', '1.5', '1e3', 'ten', '']) expect(() => positiveInteger(bad)).toThrow(InvalidArgumentError);
    expect(nonNegativeInteger('0')).toBe(0);
  });
});

describe('collectParam', () => {
  it('sends values that read as JSON as such, anything else as text', () => {
    const params = [
      'js_render=true',
      'wait=500',
      'proxy_country=de',
      'css_extractor={"title":"h1"}',
      'wait_for=.price',
      'session_id="7"',
    ].reduce<Record<string, unknown> | undefined>((previous, pair) => collectParam(pair, previous), undefined);
    expect(params).toEqual({
      js_render: true,
      wait: 500,
      proxy_country: 'de',
      css_extractor: { title: 'h1' },
      wait_for: '.price',
      session_id: '"7"',
    });
  });

  it('refuses a pair without a name', () => {
    expect(() => collectParam('=x', undefined)).toThrow(InvalidArgumentError);
    expect(() => collectParam('novalue', undefined)).toThrow(InvalidArgumentError);
  });
});

describe('scrapeParams', () => {
  it('turns the short options into Fetch parameters, --param winning', () => {
    expect(
      scrapeParams({ js: true, premium: true, country: 'us', markdown: true, outputs: 'emails,links', param: { proxy_country: 'de' } }),
    ).toEqual({
      js_render: true,
      premium_proxy: true,
      proxy_country: 'de',
      response_type: 'markdown',
      outputs: 'emails,links',
    });
    expect(scrapeParams({})).toEqual({});
  });

  it('sends the response_type of its flag, and refuses two of them', () => {
    const parse = (...args: string[]) =>
      addScrapeOptions(new Command().exitOverride().configureOutput({ writeErr: () => undefined }))
        .parse(args, { from: 'user' })
        .opts();
    expect(['--markdown', '--plaintext', '--pdf'].map((flag) => scrapeParams(parse(flag)).response_type)).toEqual([
      'markdown',
      'plaintext',
      'pdf',
    ]);
    expect(() => parse('--markdown', '--pdf')).toThrow(expect.objectContaining({ code: 'commander.conflictingOption' }));
  });
});

describe('csvInputOf', () => {
  it('names columns by header, or by index without a header', () => {
    expect(csvInputOf({ header: true, urlColumn: 'url', idColumn: 'sku' })).toEqual({
      type: 'csv',
      csv: { header: true, fields: { url: 'url', external_id: 'sku' } },
    });
    expect(csvInputOf({ header: false, urlColumn: '2' })).toEqual({ type: 'csv', csv: { header: false, fields: { url: 2 } } });
  });

  it('refuses a column name where an index is needed', () => {
    expect(() => csvInputOf({ header: false, urlColumn: 'url' })).toThrow(/--url-column must be a 0-based column index with --no-header/);
  });
});
