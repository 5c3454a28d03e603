export { embeddedFacts } from './embedded-facts';
export type { EmbeddedFact, EmbeddedSource } from './embedded-fact';
