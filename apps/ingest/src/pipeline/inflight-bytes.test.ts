import { describe, expect, it } from 'vitest';
import { createInflightBytes } from './inflight-bytes.ts';
import { IngestRefusal } from './refusal.ts';

const MAX = 64_000;

function refusal(fn: () => void): IngestRefusal {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestRefusal);
    return err as IngestRefusal;
  }
  throw new Error('expected a refusal');
}

describe('in-flight bytes', () => {
  it('refuses an export the budget cannot hold as overloaded, and holds it again once given back', () => {
    const budget = createInflightBytes(MAX);
    const first = budget.lease();
    first.take(50_000);
    const second = budget.lease();
    expect(refusal(() => second.take(20_000)).reason).toBe('overloaded');
    first.release();
    second.take(20_000);
  });

  it('lets an export larger than the budget through when it is alone', () => {
    const budget = createInflightBytes(MAX);
    const alone = budget.lease();
    alone.take(MAX * 2);
    expect(refusal(() => budget.lease().take(5000)).reason).toBe('overloaded');
  });

  it('keeps a reserve above the budget for small exports', () => {
    const budget = createInflightBytes(MAX);
    budget.lease().take(MAX - 100);
    // 1/64 of the budget is 1,000 bytes: a 900-byte export uses the reserve, a 2,000-byte one does not.
    budget.lease().take(900);
    expect(refusal(() => budget.lease().take(2000)).reason).toBe('overloaded');
    // The reserve is 1/8 of the budget, and it runs out too.
    const small = () => budget.lease().take(900);
    for (let i = 0; i < 8; i++) small();
    expect(refusal(small).reason).toBe('overloaded');
  });
});
