import { charsetParameter, decodeHtml, detectCharset, supportedEncoding } from './charset';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe(decodeHtml.name, () => {
  it('decodes UTF-8 when nothing declares an encoding', () => {
    const page = decodeHtml(utf8('<p>Grüße — 東京</p>'));
    expect(page).toEqual({ text: '<p>Grüße — 東京</p>', encoding: 'utf-8', source: 'default' });
  });

  it('uses the charset of the Content-Type header', () => {
    const page = decodeHtml(latin1('<p>caf\xe9</p>'), 'text/html; charset=ISO-8859-1');
    expect(page.text).toBe('<p>café</p>');
    expect(page.source).toBe('header');
  });

  it('uses a quoted charset of the Content-Type header', () => {
    const page = decodeHtml(latin1('caf\xe9'), 'text/html;charset="windows-1252"');
    expect(page.text).toBe('café');
  });

  it('decodes Shift_JIS declared by the header', () => {
    const sjis = Buffer.from([0x93, 0x8c, 0x8b, 0x9e]); // 東京
    expect(decodeHtml(sjis, 'text/html; charset=Shift_JIS').text).toBe('東京');
  });

  it('uses <meta charset> when the header has no charset', () => {
    const body = latin1('<html><head><meta charset="windows-1251"></head><body>\xcf\xf0\xe8\xe2\xe5\xf2</body>');
    const page = decodeHtml(body, 'text/html');
    expect(page.text).toContain('Привет');
    expect(page.source).toBe('meta');
  });

  it('uses <meta http-equiv="Content-Type"> when there is no <meta charset>', () => {
    const body = latin1(`<head><META HTTP-EQUIV='content-type' CONTENT='text/html; charset=iso-8859-15'></head>caf\xe9`);
    const page = decodeHtml(body);
    expect(page.encoding).toBe('iso-8859-15');
    expect(page.text.endsWith('café')).toBe(true);
  });

  it('prefers the header over a <meta charset>', () => {
    const body = utf8('<meta charset="windows-1252"><p>Grüße</p>');
    expect(decodeHtml(body, 'text/html; charset=utf-8').text).toBe('<meta charset="windows-1252"><p>Grüße</p>');
  });

  it('ignores a <meta charset> after the first 1,024 bytes', () => {
    const body = latin1(`<p>${'x'.repeat(1100)}</p><meta charset="windows-1252">caf\xe9`);
    expect(decodeHtml(body).encoding).toBe('utf-8');
  });

  it('ignores a <meta charset> inside a comment', () => {
    const body = latin1('<!-- <meta charset="windows-1251"> --><meta charset="windows-1252">caf\xe9');
    expect(decodeHtml(body).encoding).toBe('windows-1252');
  });

  it('ignores a charset that only appears in another meta tag', () => {
    const body = utf8('<meta name="description" content="charset=windows-1251 explained"><p>é</p>');
    expect(decodeHtml(body).encoding).toBe('utf-8');
  });

  it('reads a <meta> that declares UTF-16 as UTF-8', () => {
    expect(decodeHtml(utf8('<meta charset="utf-16"><p>é</p>')).encoding).toBe('utf-8');
  });

  it('follows a UTF-8 byte order mark, dropping it from the text', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('<p>é</p>')]);
    expect(decodeHtml(body, 'text/html; charset=windows-1252')).toEqual({
      text: '<p>é</p>',
      encoding: 'utf-8',
      source: 'bom',
    });
  });

  it('follows a UTF-16LE byte order mark', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>é</p>', 'utf16le')]);
    expect(decodeHtml(body).text).toBe('<p>é</p>');
  });

  it('follows a UTF-16BE byte order mark', () => {
    const le = Buffer.from('<p>é</p>', 'utf16le');
    const be = Buffer.from(le).swap16();
    expect(decodeHtml(Buffer.concat([Buffer.from([0xfe, 0xff]), be])).text).toBe('<p>é</p>');
  });

  it('falls through an unknown header charset to <meta>', () => {
    const body = latin1('<meta charset="windows-1252">caf\xe9');
    expect(decodeHtml(body, 'text/html; charset=x-klingon')).toMatchObject({ encoding: 'windows-1252', source: 'meta' });
  });

  it('falls back to UTF-8 when every declared label is unknown', () => {
    expect(decodeHtml(utf8('<meta charset="x-klingon">é'), 'text/html; charset=bogus').encoding).toBe('utf-8');
  });

  it('replaces bytes invalid in the chosen encoding instead of failing', () => {
    expect(decodeHtml(Buffer.from([0x61, 0xff, 0x62])).text).toBe('a\ufffdb');
  });

  it('decodes an empty body to empty text', () => {
    expect(decodeHtml(Buffer.alloc(0), 'text/html').text).toBe('');
  });
});

describe(detectCharset.name, () => {
  it('finds an unquoted <meta charset=…> without a closing quote', () => {
    expect(detectCharset(latin1('<meta charset=euc-jp>'))).toEqual({ encoding: 'euc-jp', source: 'meta' });
  });

  it('finds a self-closing <meta charset/>', () => {
    expect(detectCharset(latin1('<meta charset="gbk"/>')).encoding).toBe('gbk');
  });
});

describe(charsetParameter.name, () => {
  it.each([
    ['text/html; charset=UTF-8', 'UTF-8'],
    ['text/html;charset="koi8-r"', 'koi8-r'],
    ['text/html; foo=bar; Charset = big5 ', 'big5'],
    ['text/html', undefined],
    ['text/html; charset=', undefined],
    [undefined, undefined],
  ])('reads %p as %p', (contentType, expected) => {
    expect(charsetParameter(contentType)).toBe(expected);
  });
});

describe(supportedEncoding.name, () => {
  it('maps labels to their WHATWG names', () => {
    expect(supportedEncoding('latin1')).toBe('windows-1252');
    expect(supportedEncoding(' UTF8 ')).toBe('utf-8');
  });

  it('answers undefined for a label TextDecoder does not know', () => {
    expect(supportedEncoding('x-klingon')).toBeUndefined();
  });
});
