import { z } from 'zod';

/** Bulk exports of a run's results (spec-batch-api §8 "Bulk export"). */

/** Body of `POST /v1/jobs/{jobId}/exports`; an empty body exports the latest run. */
export const createExportBody = z
  .strictObject({ run_id: z.string().nullish().meta({ description: 'The run to export (default: the latest).' }) })
  .meta({ id: 'CreateJobExportRequest' });

/** Formats an export is made in: a gzipped tar of `results.jsonl` and the bodies. */
export const JOB_EXPORT_FORMATS = ['tar.gz'] as const;
export type JobExportFormat = (typeof JOB_EXPORT_FORMATS)[number];

/** Media type of an export archive's download. */
export const JOB_EXPORT_MEDIA_TYPE = 'application/gzip';

/** `POST /v1/jobs/{jobId}/exports`'s answer. */
export const jobExport = z
  .object({
    export_id: z.uuid(),
    job_id: z.uuid(),
    run_id: z.uuid(),
    format: z.enum(JOB_EXPORT_FORMATS),
    status: z.literal('completed').meta({ description: 'An export is made when it is asked for: it is complete at once.' }),
    url: z.string().meta({ description: 'Downloads the archive with the API key.' }),
    download_url: z.string().meta({ description: '`download.url`, under the name the public Node SDK reads.' }),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    download: z
      .object({
        url: z.string().meta({ description: 'Signed URL, no API key needed (`curl -O`, browsers); valid until `expires_at`.' }),
        method: z.literal('GET'),
        expires_at: z.iso.datetime(),
      })
      .meta({ description: 'The same archive by a signed URL.' }),
  })
  .meta({ id: 'JobExport', description: "A run's results as one archive, kept 12 hours." });
export type JobExportAnswer = z.infer<typeof jobExport>;
