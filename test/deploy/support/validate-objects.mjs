// Runs each object's kubernetes-models validate() (types, formats, enums, required fields).
// It misses unknown fields; typed-check.ts catches those. ESM, so it runs apart from jest (whose
// loader does not take these ES-module-only packages).
// usage: node validate-objects.mjs FILE.json  -> prints [{index, error?}] as JSON
import { readFileSync } from 'node:fs';

const packages = {
  'keda.sh': '@kubernetes-models/keda',
  'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};
function modelModule(apiVersion) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === '') return `kubernetes-models/${version}`;
  return `${packages[group] ?? 'kubernetes-models'}/${group}/${version}`;
}

const objects = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const [index, object] of objects.entries()) {
  try {
    const module = await import(`${modelModule(object.apiVersion)}/${object.kind}`);
    const Model = module[object.kind];
    if (!Model) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
    new Model(object).validate();
    results.push({ index });
  } catch (error) {
    results.push({ index, error: String(error?.message ?? error) });
  }
}
console.log(JSON.stringify(results));
