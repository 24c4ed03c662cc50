import { describe, expect, it } from 'vitest';
import { silentLogger } from '@aos/log';
import { exportWriter } from './export-format.ts';
import { encodeRows, exportBody, type ExportOutcome } from './export-stream.ts';

const record = { id: 'exp_0000000000000000000000aa', kind: 'traces' as const, startedAt: '2026-01-02T03:04:05.678Z' };
const writer = exportWriter('csv', ['n'] as const);

/** A source of `chunks` chunks of two rows that counts how many it has produced. */
function source(chunks: number, failAt?: number) {
  const state = { produced: 0, closed: false };
  async function* rows() {
    try {
      for (let i = 0; i < chunks; i++) {
        if (i === failAt) throw new Error('query failed: secret internals');
        state.produced++;
        yield [{ n: i * 2 }, { n: i * 2 + 1 }];
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, rows: rows() };
}

function start(rows: AsyncIterable<{ n: number }[]>) {
  const outcomes: ExportOutcome[] = [];
  const body = exportBody({
    logger: silentLogger,
    record,
    requestId: 'req-1',
    encoding: writer,
    chunks: encodeRows(rows, writer),
    finish: async (outcome) => {
      outcomes.push(outcome);
    },
  });
  return { outcomes, body };
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe('exportBody', () => {
  it('reads a chunk only when the previous one has been taken (no read-ahead)', async () => {
    const { state, rows } = source(5);
    const { body } = start(rows);
    const reader = (await body).body.getReader();
    expect(state.produced).toBe(1); // the first chunk is read before the response starts
    expect(text((await reader.read()).value)).toBe('n\r\n0\r\n1\r\n');
    expect(state.produced).toBe(1);
    expect(text((await reader.read()).value)).toBe('2\r\n3\r\n');
    expect(state.produced).toBe(2);
  });

  it('records completed, with data rows and body bytes, before the body ends', async () => {
    const { rows } = source(3);
    const { body, outcomes } = start(rows);
    const response = new Response((await body).body);
    const reader = response.body!.getReader();
    let all = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      expect(outcomes).toEqual([]);
      all += text(value);
    }
    expect(all).toBe('n\r\n0\r\n1\r\n2\r\n3\r\n4\r\n5\r\n');
    expect(outcomes).toEqual([{ status: 'completed', rows: 6, bytes: Buffer.byteLength(all) }]);
  });

  it('names the file after the kind and the start time, as an attachment', async () => {
    const { headers } = await start(source(1).rows).body;
    expect(headers).toMatchObject({
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="traces-20260102T030405Z.csv"',
      'x-export-id': record.id,
    });
    expect(headers).not.toHaveProperty('content-length');
  });

  it('writes only the header line for an empty export', async () => {
    const { body, outcomes } = start(source(0).rows);
    expect(await new Response((await body).body).text()).toBe('n\r\n');
    expect(outcomes).toEqual([{ status: 'completed', rows: 0, bytes: 3 }]);
  });

  it('fails before the response when the first chunk cannot be read', async () => {
    const { body, outcomes } = start(source(3, 0).rows);
    await expect(body).rejects.toThrow(/query failed/);
    expect(outcomes).toEqual([{ status: 'failed', rows: 0, bytes: 0, error: 'internal error (request req-1)' }]);
  });

  it('aborts the body and records the failure when a later chunk fails, without internal details', async () => {
    const { body, outcomes } = start(source(3, 1).rows);
    const reader = (await body).body.getReader();
    await reader.read();
    await expect(reader.read()).rejects.toThrow(/query failed/);
    expect(outcomes).toEqual([{ status: 'failed', rows: 2, bytes: 9, error: 'internal error (request req-1)' }]);
  });

  it('stops reading and records the failure when the client goes away', async () => {
    const { state, rows } = source(100);
    const { body, outcomes } = start(rows);
    const reader = (await body).body.getReader();
    await reader.read();
    await reader.cancel(new Error('socket closed'));
    expect(outcomes).toEqual([
      { status: 'failed', rows: 2, bytes: 9, error: 'the client closed the connection before the export ended' },
    ]);
    await new Promise((r) => setTimeout(r, 10));
    expect(state.closed).toBe(true);
    expect(state.produced).toBe(1);
  });
});
