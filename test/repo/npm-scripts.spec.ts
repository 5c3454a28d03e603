import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const makefile = readFileSync(join(ROOT, 'Makefile'), 'utf8');

/** The recipe lines of a Makefile target. */
function recipe(target: string): string[] {
  const lines = makefile.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`${target}:`));
  if (start < 0) throw new Error(`no target ${target} in the Makefile`);
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('\t')) break;
    body.push(line.trim());
  }
  return body;
}

describe('npm scripts (what a plain clone runs without make)', () => {
  it.each(['unit', 'integration', 'e2e'])('`npm run test:%s` runs jest as its make target does', (project) => {
    expect(`npx ${scripts[`test:${project}`]}`).toBe(recipe(`test-${project}`).find((line) => line.startsWith('npx jest')));
  });

  it('runs compiled entry points with the alias loader, as make does (`@trawl/*` resolves nowhere else)', () => {
    const compiled = Object.entries(scripts).filter(([, command]) => /(^|&& )node (?!-r)[^&]*dist\//.test(command));
    expect(compiled).toEqual([]);
    expect(scripts.migrate).toBe(recipe('migrate').find((line) => line.startsWith('node ')));
  });
});
