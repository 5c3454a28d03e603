import { MigrationInterface, QueryRunner } from 'typeorm';

/** Batch tasks may be PUT as well as GET and POST (issue 4: "Tasks may be POST/PUT"). */
export class PutBatchTasks1764000000100 implements MigrationInterface {
  name = 'PutBatchTasks1764000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_tasks DROP CONSTRAINT job_tasks_method_check,
      ADD CONSTRAINT job_tasks_method_check CHECK (method IN ('GET', 'POST', 'PUT'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    // PUT tasks, if any, become POST: the nearest method the older schema allows.
    await q.query(`UPDATE job_tasks SET method = 'POST' WHERE method = 'PUT'`);
    await q.query(`ALTER TABLE job_tasks DROP CONSTRAINT job_tasks_method_check,
      ADD CONSTRAINT job_tasks_method_check CHECK (method IN ('GET', 'POST'))`);
  }
}
