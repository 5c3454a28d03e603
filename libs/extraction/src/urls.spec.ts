import { resolveAnyUrl, resolveHttpUrl, srcsetUrls } from './urls';

const BASE = new URL('https://shop.test/a/page.html');

describe(resolveHttpUrl.name, () => {
  it('resolves relative URLs and trims HTML whitespace', () => {
    expect(resolveHttpUrl('\n  ../img/x.png\t', BASE)).toBe('https://shop.test/img/x.png');
    expect(resolveHttpUrl('//cdn.shop.test/x', BASE)).toBe('https://cdn.shop.test/x');
  });

  it.each([undefined, '', '   ', 'javascript:alert(1)', 'data:image/png;base64,AA', 'mailto:a@b.test', 'http://[::1'])(
    'answers undefined for %p',
    (raw) => {
      expect(resolveHttpUrl(raw, BASE)).toBeUndefined();
    },
  );
});

describe(resolveAnyUrl.name, () => {
  it('keeps other schemes and answers unparsable values as written', () => {
    expect(resolveAnyUrl('mailto:a@b.test', BASE)).toBe('mailto:a@b.test');
    expect(resolveAnyUrl('x.html', BASE)).toBe('https://shop.test/a/x.html');
    expect(resolveAnyUrl(' http://[bad ', BASE)).toBe('http://[bad');
  });
});

describe(srcsetUrls.name, () => {
  it('reads candidates with width, density and no descriptors', () => {
    expect(srcsetUrls('a.jpg 480w, b.jpg 800w,c.jpg 2x ,d.jpg')).toEqual(['a.jpg', 'b.jpg', 'c.jpg', 'd.jpg']);
  });

  it('keeps commas inside URLs and skips descriptors with parentheses', () => {
    expect(srcsetUrls('/x,y.jpg 1x, /z.jpg (junk, more) 2x, /w.jpg')).toEqual(['/x,y.jpg', '/z.jpg', '/w.jpg']);
  });

  it('answers nothing for an empty attribute', () => {
    expect(srcsetUrls('  , ,')).toEqual([]);
  });
});
