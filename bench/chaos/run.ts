import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { experiments, type Experiment } from './faults.ts';
import { deadLetters, startRig, storedRows, waitStored, type Deployment } from './rig.ts';
import { SPANS_PER_EXPORT, startSender } from './sender.ts';

// `npm run chaos -- <name>`: one fault during ingest, then one row of the fault table.
// Settings: CHAOS_FAULT_SECONDS (180), CHAOS_EXPORT_INTERVAL_MS (1000: one 500-span export a
// second, so a 3-minute fault holds ~90k spans, ~110 MB, in Redis), CHAOS_RECOVERY_SECONDS (300),
// CHAOS_WARM_SECONDS (5: ingest before the fault; on a loaded machine the service's first
// answer can take longer, and a fault then has no acked span at stake),
// CHAOS_KEEP=1 to keep the run's directories (Redis's and the engine's data) for a look afterwards,
// CHAOS_DEPLOYMENT=split to run the ingest, writer and query parts as processes of their own.
const faultMs = Number(process.env.CHAOS_FAULT_SECONDS ?? 180) * 1000;
const intervalMs = Number(process.env.CHAOS_EXPORT_INTERVAL_MS ?? 1000);
const recoveryMs = Number(process.env.CHAOS_RECOVERY_SECONDS ?? 300) * 1000;
const WARM_MS = Number(process.env.CHAOS_WARM_SECONDS ?? 5) * 1000;
const deployment = (process.env.CHAOS_DEPLOYMENT ?? 'all-in-one') as Deployment;

const HEADER = ['experiment', 'fault s', 'acked spans', 'stored (raw)', 'duplicated', 'missing', 'dead letters', 'recovery s', 'notes'];

async function run(experiment: Experiment): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), `aos-chaos-${experiment.name}-`));
  const prepared = await experiment.prepare?.(dir);
  const rig = await startRig(dir, deployment, prepared?.env);
  try {
    const sender = startSender(() => rig.ingestUrl, rig.key, intervalMs);
    await sleep(WARM_MS);
    const fault = await experiment.fault(rig, faultMs);
    // The fault is over: from here no one acts, and the sender stops, so the acked set is fixed.
    const ended = performance.now();
    await sender.stop();
    const acked = sender.acked.length * SPANS_PER_EXPORT;
    // What was stored when the fault ended shows the fault held the writes back.
    const atEnd = await storedRows(rig.client, sender.acked).catch(() => undefined);
    const recovery = await waitStored(rig.client, sender.acked, acked, ended, recoveryMs);
    // A batch replayed after it was stored would land a moment later: give it the time to show.
    await sleep(5000);
    const stored = await storedRows(rig.client, sender.acked);
    const dead = await deadLetters(rig);
    return [
      deployment === 'split' ? `${experiment.name} (split)` : experiment.name, fault.seconds.toFixed(0), String(acked), String(stored.rows), String(stored.rows - stored.distinct),
      String(acked - stored.distinct), String(dead), recovery === undefined ? `not within ${recoveryMs / 1000}` : recovery.toFixed(1),
      [`not acked: ${[...sender.notAcked].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}`, `${atEnd?.distinct ?? '?'} stored when the fault ended`, ...fault.notes].join('; '),
    ];
  } finally {
    await rig.close();
    await prepared?.close();
    if (process.env.CHAOS_KEEP === '1') console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const name = process.argv[2];
const experiment = experiments.find((e) => e.name === name);
if (!experiment) {
  console.log(`usage: npm run chaos -- <name>   (CHAOS_FAULT_SECONDS=${faultMs / 1000} by default)\n`);
  for (const e of experiments) console.log(`  ${e.name.padEnd(20)} ${e.simulates}`);
  process.exit(name ? 1 : 0);
}
if (deployment !== 'all-in-one' && deployment !== 'split') {
  console.log(`CHAOS_DEPLOYMENT: expected all-in-one or split, got ${deployment}`);
  process.exit(1);
}
if (experiment.deployments && !experiment.deployments.includes(deployment)) {
  console.log(`${experiment.name} runs on ${experiment.deployments.join(', ')} only, not on CHAOS_DEPLOYMENT=${deployment}`);
  process.exit(1);
}
const loadAtStart = loadavg()[0]!.toFixed(2);
const row = await run(experiment);
console.log(`| ${HEADER.join(' | ')} |\n|${HEADER.map(() => ' --- ').join('|')}|\n| ${row.join(' | ')} |`);
console.log(`${new Date().toISOString()}, load average ${loadAtStart} at the start, ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
process.exit(0);
