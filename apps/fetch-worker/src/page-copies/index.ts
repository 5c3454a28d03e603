export { copyKeyOf, type CopyScope } from './copy-key';
export { NatsPageCopies, type PageCopies, type PageCopy } from './page-copies';
export { NO_PAGE_COPIES, PageCopyCache } from './page-copy-cache';
export { PageCopyMetrics } from './page-copy.metrics';
export { SubjectSlots, type SubjectSlotsSettings } from './subject-slots';
