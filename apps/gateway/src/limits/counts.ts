/** Adds `delta` to `key`'s count, deleting a count that falls to 0 (maps keyed by tenant stay small). */
export function addTo(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
