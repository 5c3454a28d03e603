import { Tier } from '@trawl/billing';
import type { FetchOptionsV1 } from '@trawl/contracts';
import { isHtmlPage } from '../page-fetch/page-text';
import { answerBody } from './answer-body';
import type { TargetPage } from '../target-fetch/fetch-engine';
import type { PageTransforms } from './page-transforms';

const options = (extra: Partial<FetchOptionsV1> = {}): FetchOptionsV1 => ({
  js_render: false,
  premium_proxy: false,
  json_response: false,
  original_status: false,
  ...extra,
});

const page = (extra: Partial<TargetPage> = {}): TargetPage => ({
  tier: Tier.Basic,
  status: 200,
  finalUrl: 'http://a.test/p',
  headers: {},
  contentType: 'text/html; charset=iso-8859-1',
  body: Buffer.from('<p>caf\xe9</p>', 'latin1'),
  ...extra,
});

/** Records what each transform got, answering a marker. */
function recordingTransforms() {
  const calls: unknown[][] = [];
  const transforms: PageTransforms = {
    toMarkdown: (...args) => (calls.push(['md', ...args]), '# md'),
    toPlainText: (...args) => (calls.push(['txt', ...args]), 'txt'),
    applyCssExtractor: (...args) => (calls.push(['css', ...args]), { css: true }),
    extractOutputs: (...args) => (calls.push(['out', ...args]), { out: true }),
    applyRecipe: (...args) => (calls.push(['recipe', ...args]), { recipe: true }),
  };
  return { transforms, calls };
}

const text = (body: Buffer) => body.toString('utf8');

describe(answerBody.name, () => {
  it('answers an HTML page decoded from its charset, as UTF-8', () => {
    const answer = answerBody(page(), options(), recordingTransforms().transforms);
    expect(answer).toEqual({ contentType: 'text/html; charset=utf-8', body: Buffer.from('<p>café</p>', 'utf8') });
  });

  it('prefers the rendered DOM of a browser engine over the body', () => {
    const answer = answerBody(page({ html: '<p>rendered</p>' }), options(), recordingTransforms().transforms);
    expect(text(answer.body)).toBe('<p>rendered</p>');
  });

  it('answers other content byte for byte with its type', () => {
    const body = Buffer.from([0, 1, 2, 255]);
    expect(answerBody(page({ contentType: 'application/octet-stream', body }), options(), recordingTransforms().transforms)).toEqual({
      contentType: 'application/octet-stream',
      body,
    });
  });

  it('hands the decoded page and its final URL to markdown and plain text', () => {
    const { transforms, calls } = recordingTransforms();
    expect(answerBody(page(), options({ response_type: 'markdown' }), transforms)).toEqual({
      contentType: 'text/markdown; charset=utf-8',
      body: Buffer.from('# md'),
    });
    expect(answerBody(page(), options({ response_type: 'plaintext' }), transforms).contentType).toBe('text/plain; charset=utf-8');
    expect(calls).toEqual([
      ['md', '<p>café</p>', 'http://a.test/p'],
      ['txt', '<p>café</p>', 'http://a.test/p'],
    ]);
  });

  it('answers css_extractor as JSON, winning over outputs', () => {
    const { transforms, calls } = recordingTransforms();
    const answer = answerBody(page(), options({ css_extractor: { t: 'p' }, outputs: ['emails'] }), transforms);
    expect(answer).toEqual({ contentType: 'application/json; charset=utf-8', body: Buffer.from('{"css":true}') });
    expect(calls).toEqual([['css', '<p>café</p>', { t: 'p' }, 'http://a.test/p']]);
  });

  it('answers outputs as JSON', () => {
    const { transforms, calls } = recordingTransforms();
    expect(text(answerBody(page(), options({ outputs: ['emails', 'links'] }), transforms).body)).toBe('{"out":true}');
    expect(calls).toEqual([['out', '<p>café</p>', ['emails', 'links'], 'http://a.test/p']]);
  });

  it('answers json_response with the html, the XHR calls, the report and a base64 screenshot', () => {
    const screenshot = { data: Buffer.from('png-bytes'), type: 'png' as const, width: 800, height: 600 };
    const report = {
      instructions_duration: 5,
      instructions_executed: 1,
      instructions_succeeded: 1,
      instructions_failed: 0,
      instructions: [],
    };
    const answer = answerBody(
      page({ html: '<p>x</p>', screenshot, jsInstructionsReport: report }),
      options({ json_response: true, screenshot: { fullpage: false, format: 'png' } }),
      recordingTransforms().transforms,
    );
    expect(JSON.parse(text(answer.body))).toEqual({
      html: '<p>x</p>',
      xhr: [],
      js_instructions_report: report,
      screenshot: { data: Buffer.from('png-bytes').toString('base64'), type: 'image/png', width: 800, height: 600 },
    });
  });

  it('answers a screenshot as the image and a PDF as application/pdf', () => {
    const screenshot = { data: Buffer.from('jpeg-bytes'), type: 'jpeg' as const, width: 1, height: 1 };
    expect(
      answerBody(page({ screenshot }), options({ screenshot: { fullpage: true, format: 'jpeg' } }), recordingTransforms().transforms),
    ).toEqual({
      contentType: 'image/jpeg',
      body: screenshot.data,
    });
    const pdf = Buffer.from('%PDF-1.7');
    expect(answerBody(page({ pdf }), options({ response_type: 'pdf' }), recordingTransforms().transforms)).toEqual({
      contentType: 'application/pdf',
      body: pdf,
    });
  });

  it('fails with ERR0001 when the engine did not make the screenshot asked for', () => {
    expect(() => answerBody(page(), options({ screenshot: { fullpage: false, format: 'png' } }), recordingTransforms().transforms)).toThrow(
      expect.objectContaining({ code: 'ERR0001' }),
    );
  });
});

describe(isHtmlPage.name, () => {
  it('sniffs an untyped body and trusts a declared type', () => {
    expect(isHtmlPage(page({ contentType: undefined, body: Buffer.from('<!doctype html><p>') }))).toBe(true);
    expect(isHtmlPage(page({ contentType: undefined, body: Buffer.from('{"a":1}') }))).toBe(false);
    expect(isHtmlPage(page({ contentType: 'application/json', body: Buffer.from('<html>') }))).toBe(false);
  });
});
