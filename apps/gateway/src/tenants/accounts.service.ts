import { Injectable } from '@nestjs/common';
import type { Account } from './account';
import { AccountNeeds, assertAccountMay } from './account-standing';
import { AccountsRepository } from './accounts.repository';

/** A tenant's account in its current billing period. */
@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  /** The account, its period renewed first when it has ended. */
  async current(tenantId: string): Promise<Account> {
    let account = await this.accounts.find(tenantId);
    if (account && account.periodEndsAt.getTime() <= Date.now()) {
      await this.accounts.renewPeriodIfEnded(tenantId, account.periodEndsAt);
      account = await this.accounts.find(tenantId);
    }
    // Only reachable for a key whose tenant was deleted after the key was cached.
    if (!account) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
    return account;
  }

  /** @throws AccountError when the account may not make a request that `needs` this. */
  async assertMay(tenantId: string, needs: AccountNeeds): Promise<Account> {
    const account = await this.current(tenantId);
    assertAccountMay(account, needs);
    return account;
  }

  activeJobs(tenantId: string): Promise<number> {
    return this.accounts.activeJobs(tenantId);
  }
}
