/** After a stop, pages already in flight may still add results for this long (spec-crawl-api §3, §8). */
export const POST_STOP_WINDOW_MINUTES = 10;

/** What a read of one crawl saw, in the order it looked (crawl row first, results last). */
export interface ResultsReadState {
  /** The crawl's status is `running`. */
  running: boolean;
  /** Stopped within the post-stop window, with pages still dispatched: more results may come. */
  pagesInFlight: boolean;
  /** The read returned every result that existed (it did not stop at `limit`). */
  reachedEnd: boolean;
  /** `item_seq` of the last result returned, or the cursor's when none was. */
  lastSeq: number;
}

/**
 * The `item_seq` the next cursor points after, or `null` when the caller has everything
 * (spec-crawl-api §4, GET one, rules 1–4). `null` only when the crawl had ended and had nothing in
 * flight when its row was read — both before the results were read, so a result committed before
 * the crawl ended cannot be missed — and the read reached the end.
 */
export function nextResultsSeq(state: ResultsReadState): number | null {
  if (!state.running && !state.pagesInFlight && state.reachedEnd) return null;
  return state.lastSeq;
}
