import { parsePage } from '../parsed-page';
import { extractFavicon } from './favicon';

const faviconOf = (html: string, url = 'https://shop.test/a/b.html') => extractFavicon(parsePage(html, url));

describe(extractFavicon.name, () => {
  it('prefers the largest rel=icon, then a scalable one', () => {
    expect(
      faviconOf(
        '<link rel="icon" href="/16.png"><link rel="icon" sizes="32x32 192x192" href="/192.png"><link rel="icon" sizes="48x48" href="/48.png">',
      ),
    ).toBe('https://shop.test/192.png');
    expect(faviconOf('<link rel="icon" sizes="512x512" href="/512.png"><link rel="icon" sizes="any" href="icon.svg">')).toBe(
      'https://shop.test/a/icon.svg',
    );
  });

  it('takes rel="shortcut icon", then apple-touch-icon, skipping data: icons', () => {
    expect(faviconOf('<link rel="apple-touch-icon" href="/apple.png"><link rel="SHORTCUT ICON" href="/fav.ico">')).toBe(
      'https://shop.test/fav.ico',
    );
    expect(faviconOf('<link rel="icon" href="data:image/png;base64,AAA"><link rel="apple-touch-icon" href="/apple.png">')).toBe(
      'https://shop.test/apple.png',
    );
  });

  it('falls back to /favicon.ico of the page origin', () => {
    expect(faviconOf('<link rel="stylesheet" href="/s.css">', 'https://shop.test:8443/deep/page')).toBe(
      'https://shop.test:8443/favicon.ico',
    );
  });
});
