/**
 * The "Examples:" block every command's `--help` ends with (a test checks that each has one):
 * each example a command line and what it does.
 */
export function examples(...items: readonly (readonly [commandLine: string, what: string])[]): string {
  return `\nExamples:\n${items.map(([commandLine, what]) => `  # ${what}\n  $ ${commandLine}`).join('\n')}\n`;
}
