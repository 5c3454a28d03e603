import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { AdminAuditService } from './admin-audit.service';
import { decodeAuditCursor, encodeAuditCursor } from './admin-cursors';
import { presentAuditEntry } from './tenant.presenter';

/** Admin API: every change made through it, newest first: `{entries, next_cursor}`; `tenant_id` filters. */
@Controller('admin/v1/audit')
@UseGuards(AdminTokenGuard)
export class AdminAuditController {
  constructor(private readonly audit: AdminAuditService) {}

  @Get()
  async list(@Query() query: QueryParameters) {
    assertKnownQueryParameters(query, ['cursor', 'limit', 'tenant_id'], { apiKeyParameter: false });
    const limit = intQueryParameter(query, 'limit', { min: 1, max: 100, fallback: 20 });
    const beforeId = decodeAuditCursor(singleQueryValue(query, 'cursor') || undefined);
    const page = await this.audit.list(beforeId, limit, singleQueryValue(query, 'tenant_id') || undefined);
    const last = page.entries.at(-1);
    return {
      entries: page.entries.map(presentAuditEntry),
      ...(page.more && last && { next_cursor: encodeAuditCursor(last.id) }),
    };
  }
}
