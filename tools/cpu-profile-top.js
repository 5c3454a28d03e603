// Prints the functions with the most self time in a .cpuprofile, and the same grouped by file:
//   node tools/cpu-profile-top.js file.cpuprofile [rows]
'use strict';
const fs = require('node:fs');
const [file, rowsArg] = process.argv.slice(2);
const rows = Number(rowsArg ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fns = new Map();
const files = new Map();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^.*node_modules\//, 'nm:').replace(/^.*\/dist\//, '');
  const key = `${functionName || '(anon)'} ${short}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const fileKey = short.startsWith('nm:')
    ? short
        .split('/')
        .slice(0, short.startsWith('nm:@') ? 2 : 1)
        .join('/')
    : short || functionName;
  files.set(fileKey, (files.get(fileKey) ?? 0) + us);
}
const show = (title, map) => {
  console.log(`\n${title} (total ${(total / 1e6).toFixed(2)} s sampled)`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${k}`);
  }
};
show('self time by function', fns);
show('self time by file / package', files);

// Inclusive time of our own code (dist/apps, dist/libs) and of a few packages' entry points: where
// the time goes below each function, not only in it.
const children = new Map(profile.nodes.map((n) => [n.id, n.children ?? []]));
const inclusive = new Map();
const totalOf = (id) => {
  if (inclusive.has(id)) return inclusive.get(id);
  let t = self.get(id) ?? 0;
  for (const c of children.get(id)) t += totalOf(c);
  inclusive.set(id, t);
  return t;
};
const byFn = new Map();
const walk = (id, onStack) => {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^.*node_modules\//, 'nm:').replace(/^.*\/dist\//, '');
  const key = `${functionName || '(anon)'} ${short}:${lineNumber + 1}`;
  const ours = /^(apps|libs)\//.test(short);
  const counted = ours && !onStack.has(key);
  if (counted) byFn.set(key, (byFn.get(key) ?? 0) + totalOf(id));
  if (counted) onStack.add(key);
  for (const c of children.get(id)) walk(c, onStack);
  if (counted) onStack.delete(key);
};
walk(profile.nodes[0].id, new Set());
show('inclusive time of our functions', byFn);
