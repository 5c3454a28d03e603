import { PUBLIC_API_ROUTES } from '@trawl/contracts/http';
import type { OperationResponses, TrawlClient } from '@trawl/sdk';

/** What a method answers: a promise's value, an iterator's page (checked by its items' list), or a stream. */
type Answer<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;
type Items<F> = F extends (...args: never[]) => AsyncGenerator<infer I, void, undefined> ? I : never;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

type Jobs = TrawlClient['jobs'];
type Crawls = TrawlClient['crawls'];

/**
 * Each SDK method's answer type against the operation's in the generated `OperationResponses`:
 * a method typed by hand with another operation's answer fails to compile here.
 */
const answersMatch: true[] = [
  true satisfies Same<Answer<TrawlClient['map']>, OperationResponses['mapSite']>,
  true satisfies Same<Answer<Crawls['start']>, OperationResponses['startCrawl']>,
  true satisfies Same<Answer<Crawls['url']>, OperationResponses['getCrawlUrl']>,
  true satisfies Same<Answer<Crawls['get']>, OperationResponses['getCrawl']>,
  true satisfies Same<Items<Crawls['list']>, OperationResponses['listCrawls']['crawls'][number]>,
  true satisfies Same<Items<Crawls['results']>, OperationResponses['getCrawl']['results'][number]>,
  true satisfies Same<Answer<Crawls['stop']>, OperationResponses['stopCrawl']>,
  true satisfies Same<Answer<Jobs['create']>, OperationResponses['createJob']>,
  true satisfies Same<Answer<Jobs['get']>, OperationResponses['getJob']>,
  true satisfies Same<Items<Jobs['list']>, OperationResponses['listJobs']['jobs'][number]>,
  true satisfies Same<Answer<Jobs['addTasks']>, OperationResponses['addTasks']>,
  true satisfies Same<Answer<Jobs['close']>, OperationResponses['closeJob']>,
  true satisfies Same<Answer<Jobs['control']>, OperationResponses['pauseJobRun']>,
  true satisfies Same<Answer<Jobs['control']>, OperationResponses['stopJobRun']>,
  true satisfies Same<Answer<Jobs['rerun']>, OperationResponses['rerunJob']>,
  true satisfies Same<Answer<Jobs['retryFailed']>, OperationResponses['retryFailedTasks']>,
  true satisfies Same<Items<Jobs['runs']>, OperationResponses['listJobRuns']['runs'][number]>,
  true satisfies Same<Answer<Jobs['run']>, OperationResponses['getJobRun']>,
  true satisfies Same<Answer<Jobs['waitForRun']>, OperationResponses['getJobRun']>,
  true satisfies Same<Answer<TrawlClient['waitForRun']>, OperationResponses['getJobRun']>,
  true satisfies Same<Answer<TrawlClient['waitForCrawl']>, OperationResponses['getCrawl']>,
  true satisfies Same<Items<Jobs['results']>, OperationResponses['listTaskResults']['results'][number]>,
  true satisfies Same<Answer<Jobs['costEstimate']>, OperationResponses['estimateJobCost']>,
  true satisfies Same<Answer<Jobs['runCost']>, OperationResponses['getJobRunCost']>,
  true satisfies Same<Answer<Jobs['setSchedule']>, OperationResponses['replaceJobSchedule']>,
  true satisfies Same<Answer<Jobs['setScheduleState']>, OperationResponses['setJobScheduleState']>,
  true satisfies Same<Items<Jobs['scheduleFirings']>, OperationResponses['listScheduleFirings']['firings'][number]>,
  true satisfies Same<Answer<Jobs['createExport']>, OperationResponses['createJobExport']>,
  true satisfies Same<Answer<Jobs['webhook']>, OperationResponses['getJobWebhook']>,
  true satisfies Same<Answer<Jobs['taskHistory']>, OperationResponses['getTaskHistory']>,
  true satisfies Same<Answer<Jobs['setWebhook']>, OperationResponses['setJobWebhook']>,
  true satisfies Same<Answer<Jobs['removeWebhook']>, OperationResponses['removeJobWebhook']>,
  true satisfies Same<Items<Jobs['webhookDeliveries']>, OperationResponses['listWebhookDeliveries']['deliveries'][number]>,
  true satisfies Same<Answer<TrawlClient['jobInputs']['create']>, OperationResponses['createJobInput']>,
  true satisfies Same<Answer<TrawlClient['jobInputs']['upload']>, OperationResponses['uploadJobInput']>,
  true satisfies Same<Answer<TrawlClient['signingKeys']['rotate']>, OperationResponses['rotateSigningKey']>,
  true satisfies Same<Answer<TrawlClient['signingKeys']['finalizeRotation']>, OperationResponses['finalizeSigningKeyRotation']>,
  true satisfies Same<Answer<TrawlClient['signingKeys']['list']>, OperationResponses['listSigningKeys']>,
  true satisfies Same<Answer<TrawlClient['signingKeys']['testWebhook']>, OperationResponses['sendWebhookTest']>,
  true satisfies Same<Answer<TrawlClient['extract']['prepare']>, OperationResponses['prepareDomain']>,
  true satisfies Same<Answer<TrawlClient['extract']['get']>, OperationResponses['getPreparedDomain']>,
  true satisfies Same<Items<TrawlClient['extract']['domains']>, OperationResponses['listExtractDomains']['domains'][number]>,
  true satisfies Same<Answer<TrawlClient['account']['usage']>, OperationResponses['getSubscriptionDetails']>,
  true satisfies Same<Answer<TrawlClient['account']['captchaSolver']>, OperationResponses['getCaptchaSolver']>,
  true satisfies Same<Answer<TrawlClient['account']['setCaptchaSolver']>, OperationResponses['setCaptchaSolver']>,
  true satisfies Same<Answer<TrawlClient['account']['removeCaptchaSolver']>, OperationResponses['removeCaptchaSolver']>,
];

/** The SDK method of every public operation; operations a client never calls say why. */
const METHOD_OF_OPERATION: Record<string, string> = {
  fetchPage: 'fetch.page',
  fetchPageWithPost: 'fetch.page (body.method POST)',
  fetchPageWithPut: 'fetch.page (body.method PUT)',
  fetchWithDelete: 'none: the API only refuses it (405)',
  fetchWithPatch: 'none: the API only refuses it (405)',
  fetchWithHead: 'none: the API only refuses it (405)',
  fetchWithOptions: 'none: the API only refuses it (405)',
  prepareDomain: 'extract.prepare',
  getPreparedDomain: 'extract.get, extract.waitFor',
  listExtractDomains: 'extract.domains',
  mapSite: 'map',
  mcpMessage: 'none: MCP clients speak it (the SDK is what its tools call)',
  startCrawl: 'crawls.start',
  getCrawlUrl: 'crawls.url',
  listCrawls: 'crawls.list',
  getCrawl: 'crawls.get, crawls.results, crawls.waitFor, waitForCrawl',
  downloadCrawl: 'crawls.download',
  getCrawlContent: 'crawls.content',
  stopCrawl: 'crawls.stop',
  createJob: 'jobs.create',
  listJobs: 'jobs.list',
  getJob: 'jobs.get',
  deleteJob: 'jobs.delete',
  listTaskResults: 'jobs.results',
  listRunTaskResults: 'none: jobs.results takes the run as `run_id`',
  getTaskContent: 'jobs.taskContent',
  getTaskHistory: 'jobs.taskHistory',
  getRunTaskHistory: 'jobs.taskHistory (runId)',
  getRunTaskContent: 'jobs.taskContent (runId)',
  downloadSignedTaskContent: 'none: the signed URL is for clients without the key (curl, browsers)',
  addTasks: 'jobs.addTasks',
  closeJob: 'jobs.close',
  listJobRuns: 'jobs.runs',
  getJobRun: 'jobs.run, jobs.waitForRun, waitForRun',
  deleteJobRun: 'jobs.deleteRun',
  stopJobRun: "jobs.control('stop')",
  cancelJobRun: "jobs.control('cancel')",
  pauseJobRun: "jobs.control('pause')",
  resumeJobRun: "jobs.control('resume')",
  rerunJob: 'jobs.rerun',
  retryFailedTasks: 'jobs.retryFailed',
  estimateJobCost: 'jobs.costEstimate',
  getJobRunCost: 'jobs.runCost',
  replaceJobSchedule: 'jobs.setSchedule',
  setJobScheduleState: 'jobs.setScheduleState',
  listScheduleFirings: 'jobs.scheduleFirings',
  createJobExport: 'jobs.createExport',
  createRunExport: 'none: jobs.createExport takes the run as `run_id`',
  getRunExport: 'none: jobs.createExport answers everything an export has, and the export is complete at once',
  downloadJobExport: 'jobs.downloadExport',
  headJobExport: 'none: jobs.downloadExport waits out an export being written',
  downloadSignedJobExport: 'none: the signed URL is for clients without the key (curl, browsers)',
  headSignedJobExport: 'none: the signed URL is for clients without the key (curl, browsers)',
  createJobInput: 'jobInputs.create, jobInputs.uploadCsv',
  uploadJobInput: 'jobInputs.upload, jobInputs.uploadCsv',
  getJobWebhook: 'jobs.webhook',
  setJobWebhook: 'jobs.setWebhook',
  removeJobWebhook: 'jobs.removeWebhook',
  listWebhookDeliveries: 'jobs.webhookDeliveries',
  rotateSigningKey: 'signingKeys.rotate',
  finalizeSigningKeyRotation: 'signingKeys.finalizeRotation',
  cancelSigningKeyRotation: 'signingKeys.cancelRotation',
  listSigningKeys: 'signingKeys.list',
  sendWebhookTest: 'signingKeys.testWebhook',
  getSubscriptionDetails: 'account.usage',
  getCaptchaSolver: 'account.captchaSolver',
  setCaptchaSolver: 'account.setCaptchaSolver',
  removeCaptchaSolver: 'account.removeCaptchaSolver',
  getOpenApiDocument: 'none: the SDK is generated from it',
};

describe('SDK coverage of the API', () => {
  it('has a method for every public operation (or says why not)', () => {
    expect(Object.keys(METHOD_OF_OPERATION).sort()).toEqual(PUBLIC_API_ROUTES.map((route) => route.operationId).sort());
    expect(answersMatch.every(Boolean)).toBe(true);
  });
});
