import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { statChildrenCpuSeconds, waitedChildrenCpuSeconds } from './proc-cpu.ts';

describe("a process's waited-for children's CPU", () => {
  it('reads cutime and cstime, after a command name that holds spaces and parentheses', () => {
    // Fields 3 to 17: state, ppid, pgrp, session, tty, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime, cutime, cstime.
    const stat = '4242 (redis (x) y) S 1 4242 4242 0 -1 4194560 100 200 0 0 700 300 1234 566 20 0 4 0';
    expect(statChildrenCpuSeconds(stat)).toBeCloseTo(18, 6);
  });

  it("counts a child's CPU once it has been waited for", () => {
    const before = waitedChildrenCpuSeconds(process.pid);
    // A child that spins for 300 ms of CPU; spawnSync waits for it.
    spawnSync(process.execPath, ['-e', 'const end = process.cpuUsage().user + 300_000; while (process.cpuUsage().user < end);']);
    expect(waitedChildrenCpuSeconds(process.pid) - before).toBeGreaterThanOrEqual(0.25);
  });
});
