import { createTwoFilesPatch, formatPatch } from 'diff';
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
 * Most lines removed plus added that are searched for line by line. The search costs about the square
 * of this (a page of 20,000 lines that all changed took minutes of the worker's event loop); past it
 * the page changed nearly whole, and is answered as replaced: every old line out, every new line in.
 */
const MAX_EDIT_LINES = 1_000;

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
  const before = withEndOfLine(previous.content);
  const after = withEndOfLine(current.content);
  const diff =
    createTwoFilesPatch('previous', 'current', before, after, '', '', { context: 3, maxEditLength: MAX_EDIT_LINES }) ??
    replacementPatch(before, after);
  return {
    status: 'changed',
    diff: diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS} characters)\n` : diff,
  };
}

/** The unified diff of `after` replacing `before` whole: one hunk, every old line removed, every new line added. */
function replacementPatch(before: string, after: string): string {
  const oldLines = linesOf(before);
  const newLines = linesOf(after);
  const patch = formatPatch({
    oldFileName: 'previous',
    newFileName: 'current',
    oldHeader: '',
    newHeader: '',
    hunks: [
      {
        oldStart: 1,
        oldLines: oldLines.length,
        newStart: 1,
        newLines: newLines.length,
        lines: [...oldLines.map((line) => `-${line}`), ...newLines.map((line) => `+${line}`)],
      },
    ],
  });
  return `${patch}… (more than ${MAX_EDIT_LINES} lines changed: shown as replaced whole)\n`;
}

/** The lines of a text that ends with an end of line. */
function linesOf(text: string): string[] {
  return text.slice(0, -1).split('\n');
}

function withEndOfLine(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
