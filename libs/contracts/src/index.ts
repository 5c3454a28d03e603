export * from './messaging-topology';
export * from './crawl-page.messages';
export * from './provisioning';
export * from './fetch.messages';
