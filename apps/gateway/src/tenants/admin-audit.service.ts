import { Injectable } from '@nestjs/common';
import { AdminAuditRecord, AdminAuditRepository } from './admin-audit.repository';
import { isUuid } from '@trawl/http';

/** The admin audit: every change made through the admin API, newest first. */
@Injectable()
export class AdminAuditService {
  constructor(private readonly audit: AdminAuditRepository) {}

  /** One page older than `beforeId`, of one tenant when `tenantId` is given (an unknown one has none). */
  async list(
    beforeId: string | undefined,
    limit: number,
    tenantId: string | undefined,
  ): Promise<{ entries: AdminAuditRecord[]; more: boolean }> {
    if (tenantId !== undefined && !isUuid(tenantId)) return { entries: [], more: false };
    const rows = await this.audit.listPage(beforeId, limit + 1, tenantId);
    return { entries: rows.slice(0, limit), more: rows.length > limit };
  }
}
