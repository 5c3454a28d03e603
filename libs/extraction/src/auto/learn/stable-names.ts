import type { PageType, Recipe, RecipeField } from '../recipe';
import { uniqueName } from './field-names';

/**
 * Keeps a domain's names stable across preparations: a newly learned field that shares a meaning
 * (an embedded path, a label, an anchored selector, a layout slot) with a field of the previous
 * recipe takes that field's name; a previous field not found again stays, dormant; a new name
 * never reuses an old one. Page types are matched by URL pattern, then by name.
 *
 * @returns the page types with names settled, previous page types not found appended dormant
 */
export function keepStableNames(learned: readonly PageType[], previous: Recipe | undefined): PageType[] {
  if (previous === undefined) return [...learned];
  const unmatched = [...previous.page_types];
  const taken = new Set(previous.page_types.map((pageType) => pageType.name));
  const result = learned.map((pageType) => {
    const at = findPreviousType(pageType, unmatched);
    return at >= 0 ? mergeFields(pageType, unmatched.splice(at, 1)[0]) : undefined;
  });
  // A new page type takes a name no previous type had.
  for (const [index, pageType] of learned.entries()) {
    if (result[index] !== undefined) continue;
    const name = uniqueName(pageType.name, taken);
    taken.add(name);
    result[index] = { ...pageType, name };
  }
  const dormant = unmatched.map((before) => ({
    ...before,
    fields: before.fields.map((field) => ({ ...field, status: 'dormant' as const })),
  }));
  return [...(result as PageType[]), ...dormant];
}

function findPreviousType(pageType: PageType, candidates: readonly PageType[]): number {
  const byPattern = candidates.findIndex((before) => before.url_patterns.some((pattern) => pageType.url_patterns.includes(pattern)));
  if (byPattern >= 0) return byPattern;
  return candidates.findIndex((before) => before.name === pageType.name);
}

function mergeFields(pageType: PageType, before: PageType): PageType {
  const unclaimed = [...before.fields];
  const oldNames = new Set(before.fields.map((field) => field.name));
  const renamed: RecipeField[] = [];
  const pending: RecipeField[] = [];
  for (const field of pageType.fields) {
    const at = unclaimed.findIndex((old) => old.type === field.type && old.meaning.some((key) => field.meaning.includes(key)));
    if (at >= 0) {
      const old = unclaimed.splice(at, 1)[0];
      renamed.push(renameField(field, old));
    } else {
      pending.push(field);
    }
  }
  const taken = new Set([...oldNames, ...renamed.map((field) => field.name)]);
  const added = pending.map((field) => {
    const name = uniqueName(field.name, taken);
    taken.add(name);
    return { ...field, name };
  });
  const dormant = unclaimed.map((field) => ({ ...field, status: 'dormant' as const }));
  // Old fields keep their order; new ones follow.
  const order = new Map(before.fields.map((field, index) => [field.name, index]));
  const known = [...renamed, ...dormant].sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  return { ...pageType, name: before.name, fields: [...known, ...added] };
}

/** `field` under `old`'s name, with both meanings; a price keeps the names of its parts (its currency). */
function renameField(field: RecipeField, old: RecipeField): RecipeField {
  const meaning = union(old.meaning, field.meaning);
  if (field.type === 'list' || old.type === 'list' || old.extra_names === undefined) return { ...field, name: old.name, meaning };
  return { ...field, name: old.name, meaning, extra_names: { ...field.extra_names, ...old.extra_names } };
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
