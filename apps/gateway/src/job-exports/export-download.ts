import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { createGzip } from 'node:zlib';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { FileTransferSlots } from '../file-transfers/file-transfer-slots';
import type { ExportRecord } from './job-exports.repository';
import { exportFileName, JobExportsService } from './job-exports.service';

/**
 * Sends an export's archive, for both ways of downloading it (API key, signed URL). The archive is
 * gzipped on the fly from one database snapshot, so its length is not known before the last byte:
 * no `Content-Length`, and no ranges (`Accept-Ranges: none`), since serving a range would mean
 * building the archive again and dropping what comes before it. `HEAD` answers the headers alone
 * and reads nothing from the database.
 */
@Injectable()
export class ExportDownload {
  constructor(
    private readonly exportsService: JobExportsService,
    private readonly transfers: FileTransferSlots,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  async send(reply: FastifyReply, exported: ExportRecord, method: 'GET' | 'HEAD'): Promise<void> {
    reply.status(200).headers({
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="${exportFileName(exported.id)}"`,
      'cache-control': 'private, no-store',
      'accept-ranges': 'none',
    });
    if (method === 'HEAD') {
      await reply.send();
      return;
    }
    // Before the status line: a refusal must still be a problem, not a cut archive.
    const release = this.transfers.take();
    const gzip = createGzip();
    // The slot is the archive's database connection: given back when the snapshot ends, not when the socket does.
    this.exportsService
      .writeArchive(exported, gzip)
      .finally(release)
      .then(
        () => gzip.end(),
        (error: unknown) => {
          // The status line has left: the client sees a cut archive; the reason is only in the logs.
          if (!gzip.destroyed) this.logger.error({ err: error, export_id: exported.id }, 'export failed mid-stream');
          gzip.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
    await reply.send(gzip);
  }
}
