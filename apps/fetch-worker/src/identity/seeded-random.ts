import { createHash } from 'node:crypto';

/** A random source in [0, 1). */
export type Random = () => number;

/**
 * A small fast PRNG (sfc32) seeded from a string's SHA-256: the same seed gives the same sequence
 * in every process, which is what makes an identity a function of its key (no store to share).
 */
export function seededRandom(seed: string): Random {
  const hash = createHash('sha256').update(seed).digest();
  let a = hash.readUInt32LE(0);
  let b = hash.readUInt32LE(4);
  let c = hash.readUInt32LE(8);
  let d = hash.readUInt32LE(12);
  return () => {
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
}

/**
 * Runs `work` with `Math.random` replaced by `random`. For a synchronous library that draws only
 * from `Math.random` and offers no seed (fingerprint-generator): nothing else can run in between,
 * so only `work` sees the replacement.
 */
export function withMathRandom<T>(random: Random, work: () => T): T {
  const original = Math.random;
  Math.random = random;
  try {
    return work();
  } finally {
    Math.random = original;
  }
}

/** One of `entries`, by weight. */
export function pickWeighted<T>(random: Random, entries: readonly (readonly [T, number])[]): T {
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let left = random() * total;
  for (const [value, weight] of entries) {
    left -= weight;
    if (left < 0) return value;
  }
  return entries[entries.length - 1][0];
}
