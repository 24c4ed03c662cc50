/** Seeded pseudo-random values for the fuzz and differential tests (test-only; reproducible failures). */

/** A small seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomInt(random: () => number, maxExclusive: number): number {
  return Math.floor(random() * maxExclusive);
}

export function randomBytes(random: () => number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = randomInt(random, 256);
  return bytes;
}

/** A uniformly random unsigned 64-bit integer. */
export function randomUint64(random: () => number): bigint {
  return (BigInt(randomInt(random, 2 ** 32)) << 32n) | BigInt(randomInt(random, 2 ** 32));
}
