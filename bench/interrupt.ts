/**
 * Runs `cleanup`, then exits, when the bench is interrupted: Ctrl-C (SIGINT) or a plain `kill`
 * (SIGTERM). Otherwise the services, site and database it started outlive it, and their CPU skews
 * the next measurement on the machine.
 */
export function onInterrupt(cleanup: () => Promise<unknown>): void {
  const stop = (signal: NodeJS.Signals): void => {
    void cleanup()
      .catch(() => undefined)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
