/**
 * The lines of an NDJSON body as parsed values, read as they arrive: a crawl's download of a
 * hundred thousand lines never sits in memory whole. Blank lines are skipped.
 *
 * @throws SyntaxError naming the line number when a line is not JSON.
 */
export async function* ndjsonLines<T>(body: ReadableStream<Uint8Array> | null): AsyncGenerator<T, void, undefined> {
  if (body === null) return;
  const decoder = new TextDecoder();
  let buffered = '';
  let lineNumber = 0;
  const parse = (line: string): T => {
    try {
      return JSON.parse(line) as T;
    } catch (error) {
      throw new SyntaxError(`NDJSON line ${lineNumber} is not JSON: ${(error as Error).message}`);
    }
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end).replace(/\r$/, '');
        buffered = buffered.slice(end + 1);
        lineNumber++;
        if (line.trim() !== '') yield parse(line);
      }
      if (done) break;
    }
    lineNumber++;
    if (buffered.trim() !== '') yield parse(buffered);
  } finally {
    // A caller that stops early releases the connection.
    await reader.cancel().catch(() => undefined);
  }
}
