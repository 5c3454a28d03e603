import { allCommands, buildProgram } from '../program';
import { capturingContext } from '../test-context.test-support';
import { COMPLETION_SHELLS, completionScript, completionTree } from './completion';

describe('completionScript', () => {
  const program = buildProgram(capturingContext());
  const commands = allCommands(program).filter((command) => command !== program);
  const longOptions = [
    ...new Set(
      allCommands(program).flatMap((command) =>
        command.options.map((option) => option.long).filter((long): long is string => long !== undefined),
      ),
    ),
  ];

  it.each(COMPLETION_SHELLS)('completes every command and every option in %s', (shell) => {
    const script = completionScript(program, shell);
    for (const command of commands)
      expect({ command: command.name(), found: script.includes(command.name()) }).toEqual({ command: command.name(), found: true });
    for (const option of longOptions) {
      // fish names long options without their dashes (`-l max-items`).
      const name = shell === 'fish' ? `-l ${option.slice(2)}` : option;
      expect({ option, found: script.includes(name) }).toEqual({ option, found: true });
    }
  });

  it.each([
    ['bash', ['compgen -W "successful failed"', 'words="bash zsh fish"']],
    ['zsh', ['compadd -- successful failed', "'bash:bash' 'zsh:zsh' 'fish:fish'"]],
    ['fish', ["-x -a 'successful failed'", "-a 'bash zsh fish'"]],
  ] as const)('offers the fixed values of options and arguments in %s', (shell, expected) => {
    const script = completionScript(program, shell);
    for (const text of expected) expect(script).toContain(text);
  });
});

describe('completionTree', () => {
  const tree = completionTree(buildProgram(capturingContext()));

  it('has a node for every command path, subcommands listed under their group', () => {
    const crawl = tree.find((node) => node.path === 'trawl/crawl');
    expect(crawl?.subcommands.map((sub) => sub.name)).toEqual(['results', 'get', 'stop', 'download']);
    expect(tree.map((node) => node.path)).toEqual(
      expect.arrayContaining([
        'trawl',
        'trawl/fetch',
        'trawl/batch/submit',
        'trawl/batch/results',
        'trawl/extract/prepare',
        'trawl/completion',
      ]),
    );
  });

  it('gives every command the global options and --help', () => {
    for (const node of tree)
      expect(node.options.flatMap((option) => option.names)).toEqual(
        expect.arrayContaining(['--api-key', '--base-url', '--config', '--json', '--help']),
      );
  });

  // The scripts skip the word after an option that takes a value, whatever the command: a name
  // that took a value in one command and none in another would break that.
  it('never uses one option name both with and without a value', () => {
    const takesValue = new Map<string, boolean>();
    for (const node of tree) {
      for (const option of node.options) {
        for (const name of option.names) {
          expect({ name, takesValue: takesValue.get(name) ?? option.takesValue }).toEqual({ name, takesValue: option.takesValue });
          takesValue.set(name, option.takesValue);
        }
      }
    }
  });
});
