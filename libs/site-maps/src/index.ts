export * from './robots-txt';
export * from './sitemap-reader';
