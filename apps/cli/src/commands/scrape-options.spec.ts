import { Command } from 'commander';
import { addScrapeOptions, scrapeParams, type ScrapeOptionValues } from './scrape-options';

function parsed(args: string[]): ScrapeOptionValues {
  const command = addScrapeOptions(new Command('fetch').exitOverride());
  command.parse(['node', 'trawl', ...args]);
  return command.opts<ScrapeOptionValues>();
}

describe(scrapeParams.name, () => {
  it('asks for a kept copy with --max-age, in seconds, beside the other short names', () => {
    expect(scrapeParams(parsed(['--js', '--max-age', '600']))).toEqual({ js_render: true, max_age: 600 });
  });

  it('tracks changes with --changes', () => {
    expect(scrapeParams(parsed(['--changes']))).toEqual({ change_tracking: true });
  });

  it('refuses a --max-age that is not a positive whole number of seconds', () => {
    expect(() => parsed(['--max-age', 'soon'])).toThrow();
    expect(() => parsed(['--max-age', '0'])).toThrow();
  });

  it('lets --param max_age win, as every --param does', () => {
    expect(scrapeParams(parsed(['--max-age', '600', '--param', 'max_age=5']))).toMatchObject({ max_age: 5 });
  });
});
