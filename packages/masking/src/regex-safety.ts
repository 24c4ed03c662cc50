/**
 * Checks a custom pattern before it may run on ingested text: valid syntax, no
 * catastrophic backtracking, no empty matches.
 */
import { isSafePattern } from 'redos-detector';

/**
 * Time the backtracking analysis may take per pattern; past it the pattern is refused. A
 * backstop only: the verdict comes from the analyser's step limit, which is the same on
 * every machine. A tight time limit made the verdict depend on the machine's load (a
 * plain `abcdef` was refused as catastrophic when a loaded test machine stalled the
 * analysis for 100 ms).
 */
export const ANALYSIS_TIMEOUT_MS = 1_000;

// Characters of several classes, so lookarounds and word boundaries get a chance
// to produce an empty match.
const EMPTY_MATCH_PROBES = ['', 'a', ' ', 'word other', 'A1 b2-c3_d4.e5@f6\n(x)[y]{z}"q\'', '\u00e9\u4e2d\u{1F600}'];

/** The problem with a pattern, or undefined when it is fit to run on the hot path. */
export function patternProblem(pattern: string, flags: string, timeoutMs = ANALYSIS_TIMEOUT_MS): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, `${flags}g`);
  } catch (err) {
    return `invalid regular expression: ${(err as Error).message}`;
  }
  for (const probe of EMPTY_MATCH_PROBES) {
    regex.lastIndex = 0;
    for (let m = regex.exec(probe); m !== null; m = regex.exec(probe)) {
      if (m[0] === '') return 'pattern matches the empty string, so it would mask nothing';
    }
  }
  // Checked anchored: a pattern is always retried from every start position, and
  // counting that retry as ambiguity would refuse nearly every unanchored pattern
  // (`\s*,\s*`). What is refused is ambiguity inside the pattern, whose cost grows
  // exponentially (or polynomially with a high degree) with the text length.
  let result: ReturnType<typeof isSafePattern>;
  try {
    result = isSafePattern(`^(?:${pattern})`, {
      caseInsensitive: flags.includes('i'),
      multiLine: flags.includes('m'),
      dotAll: flags.includes('s'),
      unicode: flags.includes('u'),
      timeout: timeoutMs,
    });
  } catch {
    // The analyser's parser lacks some syntax (named groups): refuse rather than run unchecked.
    return 'pattern uses syntax the backtracking check cannot analyse (named groups, \\k<name>): use plain groups';
  }
  if (result.safe) return undefined;
  // Cut short (time or steps) the analyser reports an infinite score whatever it found, so
  // the evidence is the trails: ambiguous paths found means catastrophic; none, unproven.
  if ((result.error === 'timedOut' || result.error === 'hitMaxSteps') && result.trails.length === 0) {
    return 'pattern is too complex to prove free of catastrophic backtracking: simplify it';
  }
  return 'pattern can backtrack catastrophically: a quantified part can match the same text in several ways (e.g. nested quantifiers like (a+)+ or overlapping alternatives like (a|a)*)';
}
