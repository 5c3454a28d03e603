import { ndjsonLines } from './ndjson';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all<T>(lines: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

describe(ndjsonLines.name, () => {
  it('parses lines split anywhere across chunks, multi-byte characters included', async () => {
    const text = '{"url":"a","t":"é€"}\n\n{"url":"b"}\r\n{"url":"c"}';
    const bytes = Buffer.from(text);
    const chunks = [bytes.subarray(0, 17), bytes.subarray(17, 18), bytes.subarray(18)].map((chunk) => chunk.toString('latin1'));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(Buffer.from(chunk, 'latin1'));
        controller.close();
      },
    });
    expect(await all(ndjsonLines(stream))).toEqual([{ url: 'a', t: 'é€' }, { url: 'b' }, { url: 'c' }]);
  });

  it('names the line that is not JSON', async () => {
    await expect(all(ndjsonLines(streamOf(['{"a":1}\n', 'oops\n'])))).rejects.toThrow('NDJSON line 2 is not JSON');
  });
});
