import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { extractPreparationV1 } from '@trawl/contracts';
import { writeToOutbox } from './outbox';

const ROOT = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'migrations') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(name) ? [path] : [];
  });
}

describe(writeToOutbox.name, () => {
  it('writes the message held to its contract, with its version stamped', async () => {
    const written: unknown[][] = [];
    const message = await writeToOutbox(
      { query: async (_text, values) => void written.push(values ?? []) },
      'p.extract.prepare',
      extractPreparationV1,
      { domain: 'shop.test', attempt: 2 },
    );
    expect(message).toEqual({ v: 1, domain: 'shop.test', attempt: 2 });
    expect(written.map(([subject, payload]) => [subject, JSON.parse(String(payload))])).toEqual([
      ['p.extract.prepare', { v: 1, domain: 'shop.test', attempt: 2 }],
    ]);
  });

  it('writes nothing that breaks the contract', async () => {
    const written: unknown[] = [];
    const bad = writeToOutbox({ query: async (text) => void written.push(text) }, 's', extractPreparationV1, { domain: '', attempt: 0 });
    await expect(bad).rejects.toThrow();
    expect(written).toEqual([]);
  });

  it('is the only writer of the outbox in the services and libraries', () => {
    const writers = [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))]
      .filter((file) => /INSERT INTO outbox/i.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(writers).toEqual(['libs/messaging/src/outbox.ts']);
  });
});
