import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batch tasks may be PUT as well as GET and POST (issue 4: "Tasks may be POST/PUT"). Jobs made from
 * a CSV input before `jobs.file_input_id` was written get it from the input that names them.
 */
export class PutBatchTasks1764000000100 implements MigrationInterface {
  name = 'PutBatchTasks1764000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_tasks DROP CONSTRAINT job_tasks_method_check,
      ADD CONSTRAINT job_tasks_method_check CHECK (method IN ('GET', 'POST', 'PUT'))`);
    await q.query(`UPDATE jobs j SET file_input_id = i.id FROM job_inputs i WHERE i.used_by_job_id = j.id AND j.file_input_id IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    // PUT tasks, if any, become POST: the nearest method the older schema allows.
    await q.query(`UPDATE job_tasks SET method = 'POST' WHERE method = 'PUT'`);
    await q.query(`ALTER TABLE job_tasks DROP CONSTRAINT job_tasks_method_check,
      ADD CONSTRAINT job_tasks_method_check CHECK (method IN ('GET', 'POST'))`);
  }
}
