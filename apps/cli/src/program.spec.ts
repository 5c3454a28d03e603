import type { Command } from 'commander';
import { allCommands, buildProgram } from './program';
import { capturingContext } from './test-context.test-support';

/** `trawl crawl results`, from the command object. */
function commandLine(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The whole `--help` output of a command, text added with addHelpText included. */
async function helpOf(path: string[]): Promise<string> {
  const context = capturingContext();
  const program = buildProgram(context);
  await expect(program.parseAsync([...path, '--help'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.helpDisplayed' });
  return context.out();
}

describe('buildProgram', () => {
  const commands = allCommands(buildProgram(capturingContext()));

  it('has the commands of the issue', () => {
    expect(commands.map(commandLine)).toEqual(
      expect.arrayContaining([
        'trawl fetch',
        'trawl crawl',
        'trawl crawl stop',
        'trawl batch submit',
        'trawl batch results',
        'trawl usage',
        'trawl extract prepare',
        'trawl completion',
      ]),
    );
  });

  it.each(commands.map((command) => [commandLine(command), command] as const))('%s --help ends with examples', async (line) => {
    const help = await helpOf(line.split(' ').slice(1));
    expect(help).toContain(`Usage: ${line}`);
    expect(help).toMatch(/\nExamples:\n {2}# .+\n {2}\$ .*trawl/);
  });

  it('documents the configuration and the exit codes in trawl --help', async () => {
    const help = await helpOf([]);
    expect(help).toContain('TRAWL_API_KEY');
    expect(help).toContain('~/.config/trawl/config.json');
    expect(help).toMatch(/Exit codes:\n(?: +\d+ {2}.+\n){9}/);
  });

  it('refuses a bad option value as a usage error before calling the API', async () => {
    const program = buildProgram(capturingContext());
    await expect(program.parseAsync(['crawl', 'https://example.com/', '--max-items', '0'], { from: 'user' })).rejects.toMatchObject({
      code: 'commander.invalidArgument',
    });
  });
});
