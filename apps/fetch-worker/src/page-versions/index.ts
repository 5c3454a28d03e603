export { ChangeTracker, type ChangeReport } from './change-tracker';
export { compareVersions, type PageVersion, type VersionComparison } from './version-diff';
