import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { QuotaModule } from '../quota/quota.module';
import { CrawlKicks } from './crawl-kicks';
import { CrawlsController } from './crawls.controller';
import { CrawlsRepository } from './crawls.repository';
import { CrawlsService } from './crawls.service';
import { PublicHostCheck } from '../site-urls/site-url';
import { StartUrlCheck } from './start-url';

@Module({
  imports: [IdempotencyModule, QuotaModule],
  controllers: [CrawlsController],
  providers: [CrawlsService, CrawlsRepository, StartUrlCheck, PublicHostCheck, CrawlKicks],
})
export class CrawlsModule {}
