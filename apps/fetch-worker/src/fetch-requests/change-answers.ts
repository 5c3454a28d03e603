import { createHash } from 'node:crypto';
import type { FetchOptionsV1 } from '@trawl/contracts';
import { isHtmlPage, pageText } from '../page-fetch/page-text';
import type { ChangeReport, PageVersion } from '../page-versions';
import type { TargetPage } from '../target-fetch/fetch-engine';
import type { AnswerBody } from './answer-body';
import type { PageTransforms } from './page-transforms';

/**
 * What `change_tracking` compares of an answered page: gone (404/410); the extracted fields with
 * `extract` (indented JSON, one field a line, so the diff names the fields); the Markdown text of
 * an HTML page; a digest of any other body.
 */
export function versionOf(page: TargetPage, answer: AnswerBody | undefined, extracting: boolean, transforms: PageTransforms): PageVersion {
  if (page.status === 404 || page.status === 410) return { kind: 'removed', content: '' };
  if (extracting && answer) {
    const { parsed } = JSON.parse(answer.body.toString('utf8')) as { parsed: unknown };
    return { kind: 'fields', content: JSON.stringify(parsed, null, 2) };
  }
  if (isHtmlPage(page)) return { kind: 'text', content: transforms.toMarkdown(pageText(page), page.finalUrl) };
  return { kind: 'digest', content: createHash('sha256').update(page.body).digest('hex') };
}

/** Whether the answer is one of our JSON objects (not a JSON target's own body), which can carry the diff. */
export function answersJsonObject(options: FetchOptionsV1, extracting: boolean): boolean {
  return extracting || options.json_response || options.css_extractor !== undefined || options.outputs !== undefined;
}

/** Our JSON answer with `change_tracking: {status, previous_fetched_at?, diff?}` added. */
export function withChangeTracking(answer: AnswerBody, report: ChangeReport): AnswerBody {
  const value = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  value.change_tracking = {
    status: report.status,
    ...(report.previousFetchedAt !== undefined && { previous_fetched_at: new Date(report.previousFetchedAt).toISOString() }),
    ...(report.diff !== undefined && { diff: report.diff }),
  };
  return { contentType: answer.contentType, body: Buffer.from(JSON.stringify(value), 'utf8') };
}
