import { looksLikeHtml, mayBeHtml, mediaTypeOf } from './media-type';

describe(mediaTypeOf.name, () => {
  it.each([
    ['text/html; charset=UTF-8', 'text/html'],
    [' Application/XHTML+XML ', 'application/xhtml+xml'],
    ['application/pdf', 'application/pdf'],
    ['', undefined],
    [undefined, undefined],
  ])('reads %p as %p', (contentType, expected) => {
    expect(mediaTypeOf(contentType)).toBe(expected);
  });
});

describe(mayBeHtml.name, () => {
  it('accepts HTML and XHTML, and a missing type', () => {
    expect(mayBeHtml('text/html')).toBe(true);
    expect(mayBeHtml('application/xhtml+xml')).toBe(true);
    expect(mayBeHtml(undefined)).toBe(true);
  });

  it('refuses other types', () => {
    for (const type of ['application/pdf', 'image/png', 'application/json', 'text/plain', 'text/css']) {
      expect(mayBeHtml(type)).toBe(false);
    }
  });
});

describe(looksLikeHtml.name, () => {
  it.each(['<!DOCTYPE html><html>', '  \n<html lang="en">', '<HEAD><title>x</title>', '\ufeff<!doctype html>', '<p>hi</p>'])(
    'recognises %p as HTML',
    (start) => {
      expect(looksLikeHtml(Buffer.from(start))).toBe(true);
    },
  );

  it.each(['%PDF-1.7', '{"json":true}', 'plain words', '<?xml version="1.0"?><rss>', ''])('does not take %p for HTML', (start) => {
    expect(looksLikeHtml(Buffer.from(start))).toBe(false);
  });
});
