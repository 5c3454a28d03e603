import { FileTransferSlots } from '../src/file-transfers/file-transfer-slots';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { ActiveJobsRepository, createDataSource, Database, RunsRepository } from '@trawl/persistence';
import { createLogger } from '@trawl/observability';
import { systemClock } from '@trawl/scheduling';
import { SecretBox, SigningKeysRepository } from '@trawl/webhooks';
import type { DataSource } from 'typeorm';
import { JobIngestsRepository } from '../src/batch/job-ingests.repository';
import { JobSchedulesRepository } from '../src/batch/job-schedules.repository';
import { JobsRepository } from '../src/batch/jobs.repository';
import { TaskIngestService } from '../src/batch/task-ingest.service';
import { JobsService } from '../src/batch/jobs.service';
import { loadGatewayConfig } from '../src/config';
import { JobInputsRepository } from '../src/job-inputs/job-inputs.repository';
import { JobInputsService } from '../src/job-inputs/job-inputs.service';
import { SigningKeysService } from '../src/webhooks/signing-keys.service';
import { ADMIN_TOKEN, TestGateway } from './gateway-harness';

/**
 * Job creation over the gateway's database, for suites that need jobs while `POST /v1/jobs` is
 * not routed yet: the same services the jobs controller calls, with the gateway's admin token (so
 * upload URLs it signs and the gateway's agree).
 */
export async function jobsServiceFor(gateway: TestGateway): Promise<{ jobs: JobsService; close: () => Promise<void> }> {
  const url = (gateway.sql as unknown as { options: { connectionString: string } }).options.connectionString;
  const dataSource: DataSource = await createDataSource({ url, poolSize: 3 }).initialize();
  const { jobs } = buildJobsService(new Database(dataSource));
  return { jobs, close: () => dataSource.destroy() };
}

/**
 * The jobs service over `db` with what it calls, wired as the gateway's module wires them (the
 * gateway's admin token, so upload URLs it signs and the gateway's agree). The caller shuts the
 * ingest down (`beforeApplicationShutdown`) where it starts ingests.
 */
export function buildJobsService(db: Database): { jobs: JobsService; ingest: TaskIngestService; signingKeys: SigningKeysService } {
  const signingKeys = new SigningKeysService(db, new SigningKeysRepository(), new SecretBox(randomBytes(32)));
  const config = loadGatewayConfig({ ADMIN_TOKEN });
  const jobInputs = new JobInputsService(db, new JobInputsRepository(db), new FileTransferSlots(config.FILE_TRANSFERS_MAX), config);
  const jobsRepository = new JobsRepository(db);
  const ingests = new JobIngestsRepository();
  const ingest = new TaskIngestService(
    db,
    ingests,
    jobsRepository,
    new RunsRepository(),
    { BATCH_INGEST_RECOVERY_INTERVAL_MS: 60_000, SHUTDOWN_TIMEOUT_MS: 10_000 },
    createLogger('test', 'silent'),
  );
  const jobs = new JobsService(
    db,
    jobsRepository,
    new ActiveJobsRepository(),
    new RunsRepository(),
    signingKeys,
    new JobSchedulesRepository(),
    ingests,
    ingest,
    systemClock,
    jobInputs,
  );
  return { jobs, ingest, signingKeys };
}

/** A raw HTTP request whose body is a stream (sent chunked unless a content-length is given). */
export function streamRequest(
  method: string,
  url: string,
  body: Readable,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    body.on('error', reject);
    body.pipe(req);
  });
}

/** `count` CSV lines produced lazily, `size` bytes each at least, so a big file never sits in memory. */
export function csvLines(count: number, line: (index: number) => string): Readable {
  return Readable.from(
    (function* generate() {
      const perChunk = 1_000;
      for (let start = 0; start < count; start += perChunk) {
        let chunk = '';
        for (let i = start; i < Math.min(count, start + perChunk); i++) chunk += `${line(i)}\n`;
        yield Buffer.from(chunk);
      }
    })(),
  );
}
