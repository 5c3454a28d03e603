import { extractionTransforms } from './extraction-transforms';

const PAGE = '<html><body><h1>Title</h1><p>Write to a@b.test</p><a class="x" href="/rel">x</a></body></html>';

describe('extractionTransforms', () => {
  it('turns a selector that does not compile into RESP004', () => {
    expect(() => extractionTransforms.applyCssExtractor(PAGE, { bad: 'a[[' }, 'http://a.test/')).toThrow(
      expect.objectContaining({ code: 'RESP004' }),
    );
  });

  it('answers css_extractor values, attributes resolved against the page URL', () => {
    expect(extractionTransforms.applyCssExtractor(PAGE, { title: 'h1', link: 'a.x @href' }, 'http://a.test/dir/')).toEqual({
      title: 'Title',
      link: 'http://a.test/rel',
    });
  });

  it('hands outputs, markdown and plain text to the extraction library', () => {
    expect(extractionTransforms.extractOutputs(PAGE, ['emails'], 'http://a.test/')).toEqual({ emails: ['a@b.test'] });
    expect(extractionTransforms.toMarkdown(PAGE, 'http://a.test/')).toContain('# Title');
    expect(extractionTransforms.toPlainText(PAGE, 'http://a.test/')).toContain('Write to a@b.test');
  });
});
