import type { Command } from 'commander';
import type { SubscriptionDetails } from '@trawl/sdk';
import { clientFor, type CliContext, type GlobalOptions } from '../context';
import { printRecord, writeTo } from '../output';
import { examples } from './help-text';

/** `trawl usage`: credits and limits of the account's billing period. */
export function registerUsageCommand(program: Command, context: CliContext): void {
  program
    .command('usage')
    .description("Show the account's credits used and left, concurrency, rate limit and plan")
    .addHelpText(
      'after',
      examples(['trawl usage', 'a summary for people'], ['trawl usage --json | jq .credits_left', 'credits left, for a script']),
    )
    .action(async (_options: unknown, self: Command) => {
      const options = self.optsWithGlobals<GlobalOptions>();
      const usage = await clientFor(context, options).account.usage({ signal: context.signal });
      if (options.json) await printRecord(context, usage, true);
      else await writeTo(context.stdout, formatUsage(usage));
    });
}

/** The usage as aligned lines for a terminal. */
function formatUsage(usage: SubscriptionDetails): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  const rows: [string, string][] = [
    ['Credits', `${n(usage.credits_used)} used of ${n(usage.credits_total)} (${usage.usage_percent} %), ${n(usage.credits_left)} left`],
    ['Period', `${usage.period_started_at} to ${usage.period_ends_at}`],
    ['Concurrency', `${n(usage.concurrency_in_use)} of ${n(usage.concurrency_limit)} in use`],
    ['Rate limit', `${n(usage.rate_limit_per_minute)} requests per minute`],
    ['Active jobs', `${n(usage.active_jobs)} of ${n(usage.max_active_jobs)} (crawls and batch jobs)`],
    ['Subscription', usage.subscription_status],
    ['Products', usage.products.join(', ') || 'none'],
    ['Features', usage.features.join(', ') || 'none'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}\n`).join('');
}
