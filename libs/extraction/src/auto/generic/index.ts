export { articleOf, type Article } from './article';
export { genericRecord, type GenericRecord } from './generic-record';
