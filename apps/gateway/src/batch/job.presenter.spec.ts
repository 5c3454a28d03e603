import { encodeContent, presentSchedule } from './job.presenter';

describe(encodeContent.name, () => {
  it.each([
    ['text/html; charset=utf-8', 'html'],
    ['application/json', 'json'],
    ['application/ld+json', null],
    ['text/markdown', 'markdown'],
  ])('serves %s as a UTF-8 string', (contentType, format) => {
    expect(encodeContent(Buffer.from('héllo'), contentType, format)).toEqual({ text: 'héllo', encoding: 'utf8' });
  });

  it('serves PDFs and images as base64, whatever bytes they hold', () => {
    const bytes = Buffer.from('%PDF-1.7 looks like text');
    expect(encodeContent(bytes, 'application/pdf', 'pdf')).toEqual({ text: bytes.toString('base64'), encoding: 'base64' });
    expect(encodeContent(bytes, 'image/png', null).encoding).toBe('base64');
  });

  it('falls back on the output format when no content type was recorded', () => {
    expect(encodeContent(Buffer.from('x'), null, 'plaintext').encoding).toBe('utf8');
    expect(encodeContent(Buffer.from('x'), null, 'pdf').encoding).toBe('base64');
    expect(encodeContent(Buffer.from('x'), null, null).encoding).toBe('base64');
  });
});

describe(presentSchedule.name, () => {
  it('shows the state column, not a state kept in the JSON, and leaves unset parts out', () => {
    const next = new Date('2030-01-06T05:00:00Z');
    expect(
      presentSchedule({
        schedule: { rate: { every: 2, unit: 'hour' }, calendar: undefined, at: undefined, timezone: undefined, schedule_state: 'active' },
        state: 'paused',
        anchorAt: new Date(),
        nextDueAt: next,
      }),
    ).toEqual({ rate: { every: 2, unit: 'hour' }, schedule_state: 'paused', next_run_at: next.toISOString() });
  });
});
