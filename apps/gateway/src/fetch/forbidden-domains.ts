// Shared with the batch scheduler, so batch tasks are refused exactly where Fetch requests are.
export { ForbiddenDomains } from '@trawl/fetch-params';
