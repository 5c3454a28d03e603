import { createTwoFilesPatch } from 'diff';
import type { ChangeStatus } from '@trawl/contracts';

/** What is compared of a page: its Markdown text, its extracted fields (as indented JSON), or a digest of a body that is not text. */
export interface PageVersion {
  kind: 'text' | 'fields' | 'digest' | 'removed';
  /** The compared content (empty for `removed`). */
  content: string;
}

/** A page against the last version: the verdict, and the diff of a `changed` one. */
export interface VersionComparison {
  status: ChangeStatus;
  /** Unified diff (three lines of context), previous → current; absent unless `changed` text or fields. */
  diff?: string;
}

/** Largest diff answered, in characters; a longer one is cut with a note (the page changed nearly whole). */
const MAX_DIFF_CHARS = 256 * 1024;

/**
 * The verdict of `change_tracking`: `new` without a previous version (or after one that was gone),
 * `removed` when the page is gone (404/410) and was not before, `same` when the compared content is
 * equal, else `changed` with a unified diff (none for a digest: there is no text to show).
 */
export function compareVersions(previous: PageVersion | undefined, current: PageVersion): VersionComparison {
  if (current.kind === 'removed') return { status: previous && previous.kind !== 'removed' ? 'removed' : 'same' };
  if (!previous || previous.kind === 'removed') return { status: 'new' };
  if (previous.kind === current.kind && previous.content === current.content) return { status: 'same' };
  if (current.kind === 'digest' || previous.kind === 'digest') return { status: 'changed' };
  const diff = createTwoFilesPatch('previous', 'current', withEndOfLine(previous.content), withEndOfLine(current.content), '', '', {
    context: 3,
  });
  return {
    status: 'changed',
    diff: diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS} characters)\n` : diff,
  };
}

function withEndOfLine(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
