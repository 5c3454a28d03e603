import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { K8sObject, repoRoot } from './chart';

const CRD_PACKAGES: Record<string, string> = {
  'keda.sh': '@kubernetes-models/keda',
  'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

/** Module of an object's model in kubernetes-models (or the CRD package of its group). */
export function modelModule(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === '') return `kubernetes-models/${version}/${kind}`;
  return `${CRD_PACKAGES[group] ?? 'kubernetes-models'}/${group}/${version}/${kind}`;
}

export interface ObjectProblem {
  object: string;
  problem: string;
}

/**
 * The typed check: every object becomes a TypeScript object literal assigned to its model's
 * interface (IDeployment, IScaledObject, ...), and the compiler's excess-property check refuses any
 * field the model does not know, at any depth, and any value of the wrong type. The models'
 * validate() (JSON schema) lets unknown fields through; this does not.
 */
export function typedCheck(objects: K8sObject[]): ObjectProblem[] {
  const lines: string[] = [];
  const names: string[] = [];
  objects.forEach((object, index) => {
    lines.push(`import type { I${object.kind} as T${index} } from ${JSON.stringify(modelModule(object.apiVersion, object.kind))};`);
    names.push(`${object.kind}/${object.metadata?.name}`);
  });
  const bodyStart = lines.length;
  objects.forEach((object, index) => lines.push(`export const o${index}: T${index} = ${JSON.stringify(object)};`));
  const file = resolve(repoRoot, 'test', 'deploy', '__typed-check__.ts');
  const host = ts.createCompilerHost({});
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => (resolve(name) === file ? source : readFile(name));
  host.fileExists = (name) => resolve(name) === file || fileExists(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language) =>
    resolve(name) === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language);
  const program = ts.createProgram([file], options, host);
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file && resolve(d.file.fileName) === file);
  return diagnostics.map((d) => {
    const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line;
    const index = line - bodyStart;
    return {
      object: index >= 0 && index < names.length ? names[index] : `import of ${names[line] ?? '?'}`,
      problem: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    };
  });
}

/** kubernetes-models' own validate() for every object, run in a plain node process (the models are ES modules). */
export function modelValidate(objects: K8sObject[]): ObjectProblem[] {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-validate-'));
  try {
    const input = join(dir, 'objects.json');
    writeFileSync(input, JSON.stringify(objects));
    const output = execFileSync('node', [resolve(__dirname, 'validate-objects.mjs'), input], {
      encoding: 'utf8',
      cwd: repoRoot,
      maxBuffer: 64 * 1024 * 1024,
    });
    const results = JSON.parse(output) as { index: number; error?: string }[];
    return results
      .filter((r) => r.error)
      .map((r) => ({ object: `${objects[r.index].kind}/${objects[r.index].metadata?.name}`, problem: r.error! }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
