import { BatchTaskMethod } from '@trawl/contracts';
import { BATCH_LIMITS, BatchTaskBody, batchTaskBody, InvalidTask, MAX_INVALID_TASKS_LISTED } from '@trawl/contracts/http';
import { fieldName } from '../problems/body-validation';
import { BOTH_PARAM_NAMES, SERVICE_PARAMS_SYNONYM, withSpecParamName } from './param-synonyms';
import { checkServiceParams, checkTargetUrl, ServiceParamsProblem } from './service-params';

/** A task as stored. */
export interface JobTask {
  url: string;
  method: BatchTaskMethod;
  body: string | null;
  externalId: string | null;
  metadata: Record<string, unknown> | null;
  serviceParams: Record<string, unknown> | null;
}

/** Stands in for the task's URL while its parameters are checked (the URL is checked on its own). */
const PARAMS_PROBE_URL = 'https://example.com/';

/**
 * Checks every task (its shape, then its merged service parameters through the Fetch API's rules)
 * and collects the bad ones, so a caller fixes a whole submission at once.
 */
export function checkTasks(
  raw: readonly unknown[],
  jobParams: Record<string, unknown>,
): { tasks: JobTask[]; invalid: InvalidTask[]; invalidCount: number } {
  const tasks: JobTask[] = [];
  const invalid: InvalidTask[] = [];
  let invalidCount = 0;
  const reject = (entry: InvalidTask) => {
    invalidCount += 1;
    if (invalid.length < MAX_INVALID_TASKS_LISTED) invalid.push(entry);
  };
  // The parameters of most tasks are the job's own: check each distinct set once, not 100,000 times
  // (the URL is checked per task below, the way the Fetch API checks it).
  const verdicts = new Map<string, ServiceParamsProblem | null>();
  const paramsProblem = (own: Record<string, unknown> | null | undefined): ServiceParamsProblem | null => {
    const key = own ? JSON.stringify(own) : '';
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      const checked = checkServiceParams(PARAMS_PROBE_URL, jobParams, own ?? {});
      verdict = checked.ok ? null : checked.problem;
      verdicts.set(key, verdict);
    }
    return verdict;
  };
  raw.forEach((sent, index) => {
    const candidate = withSpecParamName(sent);
    if (candidate === undefined) {
      reject({ index, field: SERVICE_PARAMS_SYNONYM, reason: BOTH_PARAM_NAMES });
      return;
    }
    const parsed = plainTask(candidate) ?? batchTaskBody.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
      const field = fieldName(path) || 'task';
      reject({ index, field, reason: issue.code === 'unrecognized_keys' ? 'is not a task field' : issue.message });
      return;
    }
    const task = parsed.data;
    const target = checkTargetUrl(task.url);
    if (!target.ok) {
      reject({ index, field: 'url', reason: target.reason });
      return;
    }
    const problem = paramsProblem(task.service_params);
    if (problem) {
      reject({ index, field: `service_params.${problem.parameter}`, reason: problem.reason });
      return;
    }
    tasks.push({
      url: target.href,
      method: task.method,
      body: task.body ?? null,
      externalId: task.external_id ?? null,
      metadata: task.metadata ?? null,
      serviceParams: task.service_params ?? null,
    });
  });
  return { tasks, invalid, invalidCount };
}

const TASK_FIELDS = new Set(Object.keys(batchTaskBody.shape));

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The common task (`{url, external_id?, metadata?}`, all well-formed) read without zod, which costs
 * about 10 µs a task: a second of a 100,000-task submission's `202`. Anything else — unusual or
 * wrong — returns `undefined` and goes through `batchTaskBody`, which names the problem; so this only
 * ever accepts what the schema accepts.
 */
function plainTask(candidate: unknown): { success: true; data: BatchTaskBody } | undefined {
  if (!isPlainObject(candidate)) return undefined;
  for (const key in candidate) if (!TASK_FIELDS.has(key)) return undefined;
  const { url, external_id, metadata, service_params, method, body } = candidate;
  if (typeof url !== 'string' || url.length === 0 || url.length > BATCH_LIMITS.urlChars) return undefined;
  if (!isAbsent(external_id) && (typeof external_id !== 'string' || external_id.length > BATCH_LIMITS.externalIdChars)) return undefined;
  if (!isAbsent(service_params) && !isPlainObject(service_params)) return undefined;
  if (method !== undefined && method !== 'GET') return undefined;
  if (!isAbsent(body)) return undefined;
  if (!isAbsent(metadata)) {
    // Small objects of scalars only; anything bigger or nested is the schema's to judge.
    if (!isPlainObject(metadata)) return undefined;
    let size = 2;
    for (const key in metadata) {
      const value = metadata[key];
      if (typeof value === 'string')
        size += value.length * 6; // \u escapes at worst
      else if (typeof value !== 'number' && typeof value !== 'boolean' && value !== null) return undefined;
      size += key.length * 6 + 32;
    }
    if (size > BATCH_LIMITS.metadataBytes) return undefined;
  }
  return {
    success: true,
    data: {
      url,
      external_id: external_id as string | null | undefined,
      metadata: metadata as Record<string, unknown> | null | undefined,
      service_params: service_params as Record<string, unknown> | null | undefined,
      method: 'GET',
      body: body as null | undefined,
    },
  };
}
