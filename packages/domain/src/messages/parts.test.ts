import { describe, expect, it } from 'vitest';
import { withFields } from './parts.ts';

describe('withFields', () => {
  it('copies the value with the fields set, keeping the value unchanged and its key order', () => {
    const value = { role: 'user', content: 'hi', name: 'x' };
    const copy = withFields(value, { content: 'hello', finish_reason: 'stop' });
    expect(copy).toEqual({ role: 'user', content: 'hello', name: 'x', finish_reason: 'stop' });
    expect(Object.keys(copy)).toEqual(['role', 'content', 'name', 'finish_reason']);
    expect(value).toEqual({ role: 'user', content: 'hi', name: 'x' });
  });

  it('copies an own __proto__ key as a key, not as the prototype', () => {
    const value = JSON.parse('{"__proto__":{"role":"system"},"content":"hi"}') as Record<string, unknown>;
    const copy = withFields(value, { type: 'text' });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy['role']).toBeUndefined();
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.keys(copy)).toEqual(['__proto__', 'content', 'type']);
  });
});
