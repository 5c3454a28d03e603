import { toPuppeteerSelector } from './selectors';

describe(toPuppeteerSelector.name, () => {
  it('prefixes XPath expressions with xpath/', () => {
    expect(toPuppeteerSelector('//button[@id="go"]')).toBe('xpath///button[@id="go"]');
    expect(toPuppeteerSelector(' (//a)[2] ')).toBe('xpath/(//a)[2]');
  });

  it('leaves CSS selectors alone', () => {
    expect(toPuppeteerSelector('#go > a[href^="/x"]')).toBe('#go > a[href^="/x"]');
    expect(toPuppeteerSelector('div//p')).toBe('div//p');
  });
});
