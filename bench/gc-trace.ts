/**
 * Reads the lines `node --trace-gc` writes and sums up the pauses per isolate (the main
 * thread's and each worker's), so a bench can tell a long answer that was a collector's
 * pause from one that was work.
 */

export interface GcPause {
  isolate: string;
  /** Milliseconds since that isolate started (the main isolate: about the process's start). */
  atMs: number;
  kind: string;
  pauseMs: number;
  heapAfterMiB: number;
  /** What V8 gave as the cause (allocation failure, external memory pressure, …). */
  reason: string;
}

// [pid:0xaddr]   8123 ms: Mark-Compact 812.3 (850.1) -> 600.2 (640.0) MB, pooled: 0 MB, 512.34 / 0.12 ms  (+ … since start of marking …) (average mu = …) reason; …
const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: ([A-Za-z-]+(?: \(reduce\))?)[^,]*?-> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms([^;]*)/;

export function parseGcTrace(output: string): GcPause[] {
  const pauses: GcPause[] = [];
  for (const line of output.split('\n')) {
    const m = LINE.exec(line);
    if (m) pauses.push({ isolate: m[1]!, atMs: Number(m[2]), kind: m[3]!, pauseMs: Number(m[5]), heapAfterMiB: Number(m[4]), reason: m[6]!.replace(/\([^)]*\)/g, '').trim() });
  }
  return pauses;
}

/** One line per isolate (the first one seen is the main thread's), and each pause of at least `longMs`. */
export function gcSummary(pauses: GcPause[], longMs = 250): string[] {
  const isolates = [...new Set(pauses.map((p) => p.isolate))];
  const lines = isolates.map((isolate, i) => {
    const own = pauses.filter((p) => p.isolate === isolate);
    const byKind = new Map<string, { n: number; ms: number; max: number }>();
    for (const p of own) {
      const k = byKind.get(p.kind) ?? { n: 0, ms: 0, max: 0 };
      byKind.set(p.kind, { n: k.n + 1, ms: k.ms + p.pauseMs, max: Math.max(k.max, p.pauseMs) });
    }
    const kinds = [...byKind].map(([kind, k]) => `${kind} ${k.n}× ${k.ms.toFixed(0)} ms (max ${k.max.toFixed(0)})`).join(', ');
    const peak = Math.max(...own.map((p) => p.heapAfterMiB));
    const reasons = new Map<string, number>();
    for (const p of own.filter((p) => p.kind.startsWith('Mark-Compact'))) reasons.set(p.reason, (reasons.get(p.reason) ?? 0) + p.pauseMs);
    const why = [...reasons].map(([reason, ms]) => `${reason || '?'} ${ms.toFixed(0)} ms`).join(', ');
    return `gc ${i === 0 ? 'main' : `thread ${i}`} (${isolate}): ${kinds}; largest heap after a GC ${peak.toFixed(0)} MB; mark-compact causes: ${why}`;
  });
  const long = pauses.filter((p) => p.pauseMs >= longMs);
  for (const p of long) lines.push(`  pause ${p.pauseMs.toFixed(0)} ms, ${p.kind}, ${isolates.indexOf(p.isolate) === 0 ? 'main' : `thread ${isolates.indexOf(p.isolate)}`} at ${p.atMs} ms, heap after ${p.heapAfterMiB} MB, ${p.reason}`);
  return lines;
}
