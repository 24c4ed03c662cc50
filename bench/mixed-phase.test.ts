import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryEverySecond, type QueryCase } from './mixed-phase.ts';

/** A local HTTP server answering 200 after `delayMs`, as a read of the service under load would. */
let server: http.Server;
let url: string;
let delayMs = 0;
beforeAll(async () => {
  server = http.createServer((_, res) => void setTimeout(() => res.end('{}'), delayMs));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const cases: QueryCase[] = [
  { name: 'list', path: '/list' },
  { name: 'summary', path: '/summary' },
];

describe('the queries of a mixed phase', () => {
  it('ask once a second for the seconds given', async () => {
    delayMs = 0;
    const times = await queryEverySecond({ url }, 'key', cases, 2);
    expect(times.ms.map((ms) => ms.length)).toEqual([2, 2]);
    expect(times.failed).toEqual([0, 0]);
  });

  it("stop when the phase's load has ended, however many seconds were asked for", async () => {
    // Before, the queries ran a fixed count of ticks: slow ticks ran past the load's end and
    // counted reads made while the writer only drained its queue.
    delayMs = 200;
    let ended = false;
    setTimeout(() => (ended = true), 300);
    const times = await queryEverySecond({ url }, 'key', cases, 60, () => ended);
    expect(times.ms.map((ms) => ms.length)).toEqual([1, 1]);
  });
});
