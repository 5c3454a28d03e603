import { Argument, type Command, type Option } from 'commander';
import type { CliContext } from '../context';
import { writeTo } from '../output';
import { examples } from './help-text';

/** Shells `trawl completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** One option as completion sees it. */
export interface CompletionOption {
  /** `--out`, `-o`: every name it goes by. */
  names: string[];
  description: string;
  takesValue: boolean;
  /** The value names a file (`<file>` in its flags): complete file names. */
  takesFile: boolean;
  choices: readonly string[];
}

/** One command of the program: where it is, what may follow it. */
export interface CompletionNode {
  /** `trawl`, `trawl/crawl`, `trawl/crawl/results`: the words that lead to it, joined by `/`. */
  path: string;
  subcommands: { name: string; description: string }[];
  /** Its own options, the program's global ones and `--help`. */
  options: CompletionOption[];
  /** Values its first argument may take (`bash zsh fish`), when they are a fixed list. */
  argumentChoices: readonly string[];
  /** Its first argument names a file (`<csv-file>`): complete file names. */
  argumentTakesFile: boolean;
}

/**
 * Every command of the program, read from commander's own tree: a command or option added to the
 * program is completed without touching this file.
 */
export function completionTree(program: Command): CompletionNode[] {
  // --version works only before a command; the other program options work anywhere.
  const globals = program.options.filter((option) => !option.hidden && option.long !== '--version').map(completionOption);
  const help: CompletionOption = { names: ['--help', '-h'], description: 'show help', takesValue: false, takesFile: false, choices: [] };
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string): void => {
    const own =
      command === program
        ? program.options.filter((option) => option.long === '--version').map(completionOption)
        : command.options.filter((option) => !option.hidden).map(completionOption);
    const visible = command.commands.filter((sub) => sub.name() !== 'help');
    const argument = command.registeredArguments[0];
    nodes.push({
      path,
      subcommands: visible.map((sub) => ({ name: sub.name(), description: firstLine(sub.summary() || sub.description()) })),
      options: [...own, ...globals, help],
      argumentChoices: argument ? choicesOf(argument) : [],
      argumentTakesFile: argument?.name().includes('file') ?? false,
    });
    for (const sub of visible) visit(sub, `${path}/${sub.name()}`);
  };
  visit(program, program.name());
  return nodes;
}

/** The completion script of `shell` for the program. */
export function completionScript(program: Command, shell: CompletionShell): string {
  const nodes = completionTree(program);
  switch (shell) {
    case 'bash':
      return bashScript(program.name(), nodes);
    case 'zsh':
      return zshScript(program.name(), nodes);
    case 'fish':
      return fishScript(program.name(), nodes);
  }
}

/** `trawl completion bash|zsh|fish`. */
export function registerCompletionCommand(program: Command, context: CliContext): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      examples(
        ['source <(trawl completion bash)', 'bash, this shell only (add the line to ~/.bashrc to keep it)'],
        ['trawl completion zsh > "${fpath[1]}/_trawl"', 'zsh, for every new shell (after compinit)'],
        ['trawl completion fish > ~/.config/fish/completions/trawl.fish', 'fish, for every new shell'],
      ),
    )
    .action(async (shell: CompletionShell) => {
      await writeTo(context.stdout, completionScript(program, shell));
    });
}

function completionOption(option: Option): CompletionOption {
  return {
    names: [option.long, option.short].filter((name): name is string => name !== undefined),
    description: firstLine(option.description),
    takesValue: option.required || option.optional,
    takesFile: /[<[]file[\]>]/.test(option.flags),
    choices: option.argChoices ?? [],
  };
}

function choicesOf(argument: Argument): readonly string[] {
  return (argument as Argument & { argChoices?: readonly string[] }).argChoices ?? [];
}

function firstLine(text: string): string {
  return text.split('\n')[0].trim();
}

/** Every option that takes a value, over the whole program: the word after one is its value, never a command. */
function valueOptions(nodes: readonly CompletionNode[]): CompletionOption[] {
  const byName = new Map<string, CompletionOption>();
  for (const node of nodes)
    for (const option of node.options) if (option.takesValue) for (const name of option.names) byName.set(name, option);
  return [...new Map([...byName.values()].map((option) => [option.names.join(' '), option])).values()];
}

function namesOf(options: readonly CompletionOption[]): string[] {
  return options.flatMap((option) => option.names);
}

function shellWords(words: readonly string[]): string {
  return words.join(' ');
}

function bashScript(name: string, nodes: readonly CompletionNode[]): string {
  const values = valueOptions(nodes);
  const fn = `_${name}_completions`;
  const lines = [
    `# bash completion for ${name}; generated by \`${name} completion bash\`.`,
    `# Load it with: source <(${name} completion bash)`,
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmdpath=' + `"${name}"` + ' word i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    word="${COMP_WORDS[i]}"',
    '    case "$word" in',
    `      ${namesOf(values).join('|')}) ((i++)); continue ;;`,
    '      -*) continue ;;',
    '    esac',
    '    case "$cmdpath/$word" in',
    `      ${nodes
      .filter((node) => node.path !== name)
      .map((node) => node.path)
      .join('|')}) cmdpath="$cmdpath/$word" ;;`,
    '    esac',
    '  done',
    '  case "$prev" in',
  ];
  for (const option of values) {
    // An empty reply falls back to file names (`complete -o default`), right for `--out <file>`.
    const reply = option.choices.length > 0 ? `COMPREPLY=($(compgen -W "${shellWords(option.choices)}" -- "$cur"))` : 'COMPREPLY=()';
    lines.push(`    ${option.names.join('|')}) ${reply}; return ;;`);
  }
  lines.push('  esac', '  local words', '  case "$cmdpath" in');
  for (const node of nodes) {
    lines.push(
      `    ${node.path}) if [[ "$cur" == -* ]]; then words="${shellWords(namesOf(node.options))}"; else words="${shellWords([...node.subcommands.map((sub) => sub.name), ...node.argumentChoices])}"; fi ;;`,
    );
  }
  lines.push('  esac', '  COMPREPLY=($(compgen -W "$words" -- "$cur"))', '}', `complete -o default -F ${fn} ${name}`, '');
  return lines.join('\n');
}

/** A zsh `_describe` item `name:description`, single-quoted (colons in the name escaped). */
function zshItem(word: string, description: string): string {
  return quote(`${word.replace(/:/g, '\\:')}:${description}`);
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function zshScript(name: string, nodes: readonly CompletionNode[]): string {
  const values = valueOptions(nodes);
  const fn = `_${name}`;
  const lines = [
    `#compdef ${name}`,
    `# zsh completion for ${name}; generated by \`${name} completion zsh\`.`,
    `# Install it as a file named ${fn} in a directory of $fpath, or load it with: source <(${name} completion zsh)`,
    `compdef ${fn} ${name}`,
    `${fn}() {`,
    `  local cmdpath="${name}" word i`,
    '  local -a candidates',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    word="${words[i]}"',
    '    case "$word" in',
    `      (${namesOf(values).join('|')}) ((i++)); continue ;;`,
    '      (-*) continue ;;',
    '    esac',
    '    case "$cmdpath/$word" in',
    `      (${nodes
      .filter((node) => node.path !== name)
      .map((node) => node.path)
      .join('|')}) cmdpath="$cmdpath/$word" ;;`,
    '    esac',
    '  done',
    '  case "${words[CURRENT-1]}" in',
  ];
  for (const option of values) {
    const action = option.choices.length > 0 ? `compadd -- ${shellWords(option.choices)}` : option.takesFile ? '_files' : ':';
    lines.push(`    (${option.names.join('|')}) ${action}; return ;;`);
  }
  lines.push('  esac', '  case "$cmdpath" in');
  for (const node of nodes) {
    const options = node.options.flatMap((option) => option.names.map((optionName) => zshItem(optionName, option.description)));
    const words = [
      ...node.subcommands.map((sub) => zshItem(sub.name, sub.description)),
      ...node.argumentChoices.map((choice) => zshItem(choice, choice)),
    ];
    lines.push(`    (${node.path})`);
    lines.push(
      `      if [[ "\${words[CURRENT]}" == -* ]]; then candidates=(${options.join(' ')}); else candidates=(${words.join(' ')}); fi ;;`,
    );
  }
  const fileNodes = nodes.filter((node) => node.argumentTakesFile).map((node) => node.path);
  lines.push(
    '  esac',
    '  if (( ${#candidates} )); then _describe -t "${tag:-commands}" ' + quote(name) + ' candidates; fi',
    ...(fileNodes.length > 0 ? [`  case "$cmdpath" in (${fileNodes.join('|')}) [[ "\${words[CURRENT]}" == -* ]] || _files ;; esac`] : []),
    '}',
    '# Run at once when zsh calls the file as the function (fpath); not when it is sourced.',
    `if [ "$funcstack[1]" = "${fn}" ]; then ${fn} "$@"; fi`,
    '',
  );
  return lines.join('\n');
}

function fishScript(name: string, nodes: readonly CompletionNode[]): string {
  const values = valueOptions(nodes);
  const fn = `__${name}_cmdpath`;
  const lines = [
    `# fish completion for ${name}; generated by \`${name} completion fish\`.`,
    `# Install it as ~/.config/fish/completions/${name}.fish`,
    `function ${fn}`,
    '    set -l tokens (commandline -opc)',
    `    set -l cmdpath ${name}`,
    '    set -l skip 0',
    '    for token in $tokens[2..-1]',
    '        if test $skip -eq 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $token',
    `            case ${namesOf(values).join(' ')}`,
    '                set skip 1',
    '                continue',
    "            case '-*'",
    '                continue',
    '        end',
    '        switch "$cmdpath/$token"',
    `            case ${nodes
      .filter((node) => node.path !== name)
      .map((node) => node.path)
      .join(' ')}`,
    '                set cmdpath "$cmdpath/$token"',
    '        end',
    '    end',
    '    echo $cmdpath',
    'end',
    `complete -c ${name} -f`,
  ];
  for (const node of nodes) {
    const when = `-n ${quote(`test (${fn}) = ${node.path}`)}`;
    for (const sub of node.subcommands) lines.push(`complete -c ${name} ${when} -a ${sub.name} -d ${quote(sub.description)}`);
    if (node.argumentChoices.length > 0) lines.push(`complete -c ${name} ${when} -a ${quote(shellWords(node.argumentChoices))}`);
    if (node.argumentTakesFile) lines.push(`complete -c ${name} ${when} -F`);
    for (const option of node.options) {
      const names = option.names
        .map((optionName) => (optionName.startsWith('--') ? `-l ${optionName.slice(2)}` : `-s ${optionName.slice(1)}`))
        .join(' ');
      const value = !option.takesValue
        ? ''
        : option.choices.length > 0
          ? ` -x -a ${quote(shellWords(option.choices))}`
          : option.takesFile
            ? ' -r -F'
            : ' -x';
      lines.push(`complete -c ${name} ${when} ${names}${value} -d ${quote(option.description)}`);
    }
  }
  lines.push('');
  return lines.join('\n');
}
