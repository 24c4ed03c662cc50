/**
 * Messages as stored: JSON text within the per-value size limit. A list too large is cut
 * where it stays valid JSON and keeps its shape: the longest texts are shortened first (each
 * cut one ends with "…"), and only when the shape alone is too large are the oldest messages
 * dropped.
 */
import { truncateUtf8 } from '../attributes.ts';

export interface StoredJson {
  readonly text: string;
  readonly truncated: boolean;
}

/** Shared by every span without such a list (most spans): nothing to allocate. */
const EMPTY: StoredJson = Object.freeze({ text: '', truncated: false });

const ELLIPSIS = '…';
const encoder = new TextEncoder();

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  text: string;
  /** Bytes of the text once JSON-escaped, without its quotes. */
  cost: number;
}

/** A deep copy of a JSON value, with every string leaf recorded so it can be shortened in place. */
function copyWithSlots(value: unknown, slots: Slot[]): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = leaf(value[i], out, i, slots);
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = leaf((value as Record<string, unknown>)[key], out, key, slots);
    return out;
  }
  return value;
}

function leaf(value: unknown, holder: Slot['holder'], key: string | number, slots: Slot[]): unknown {
  if (typeof value !== 'string') return copyWithSlots(value, slots);
  if (value.length > 16) slots.push({ holder, key, text: value, cost: byteLength(JSON.stringify(value)) - 2 });
  return value;
}

/** The largest per-string cap for which the strings' costs add up to at most `budget`. */
function waterLevel(costs: number[], budget: number): number {
  const sorted = [...costs].sort((a, b) => a - b);
  let remaining = budget;
  for (let i = 0; i < sorted.length; i++) {
    const left = sorted.length - i;
    if (sorted[i]! * left > remaining) return Math.max(0, Math.floor(remaining / left));
    remaining -= sorted[i]!;
  }
  return Number.MAX_SAFE_INTEGER;
}

function setSlot(slot: Slot, text: string): void {
  (slot.holder as Record<string | number, unknown>)[slot.key] = text;
}

/** Shortens the longest strings of `value` so its JSON fits `maxBytes`; undefined when the shape alone does not fit. */
function shrinkStrings(value: unknown, maxBytes: number): string | undefined {
  const slots: Slot[] = [];
  const copy = copyWithSlots(value, slots);
  for (const slot of slots) setSlot(slot, '');
  const overhead = byteLength(JSON.stringify(copy));
  let budget = maxBytes - overhead - slots.length * encoder.encode(ELLIPSIS).length;
  for (let attempt = 0; attempt < 6 && budget > 0; attempt++) {
    const cap = waterLevel(
      slots.map((s) => s.cost),
      budget,
    );
    for (const slot of slots) {
      if (slot.cost <= cap) setSlot(slot, slot.text);
      // Escapes make a text cost more than its bytes: cut in proportion.
      else setSlot(slot, (truncateUtf8(slot.text, Math.floor((cap * slot.text.length) / slot.cost)) ?? slot.text) + ELLIPSIS);
    }
    const text = JSON.stringify(copy);
    const bytes = byteLength(text);
    if (bytes <= maxBytes) return text;
    budget -= bytes - maxBytes + Math.ceil(budget * 0.05);
  }
  return undefined;
}

/**
 * The JSON text of a message list (or parts list) within `maxBytes`; '' for an empty or
 * missing list. `source` is text the list was read from that already is the list in the
 * stored shape (canonical.ts): kept as it is when it fits, so an attribute holding exactly
 * that text can be stored once.
 */
export function storedJson(list: readonly unknown[] | undefined, maxBytes: number, source?: string): StoredJson {
  if (list === undefined || list.length === 0) return EMPTY;
  if (source !== undefined && source.length <= maxBytes && (source.length * 3 <= maxBytes || byteLength(source) <= maxBytes)) {
    return { text: source, truncated: false };
  }
  const text = JSON.stringify(list);
  if (text.length * 3 <= maxBytes || byteLength(text) <= maxBytes) return { text, truncated: false };
  const whole = shrinkStrings(list, maxBytes);
  if (whole !== undefined) return { text: whole, truncated: true };
  // Fewer messages always fit at least as well: find the most that fit by bisection.
  let fits: string | undefined;
  let low = 1;
  let high = list.length - 1;
  while (low <= high) {
    const start = (low + high) >> 1;
    const shrunk = shrinkStrings(list.slice(start), maxBytes);
    if (shrunk === undefined) low = start + 1;
    else {
      fits = shrunk;
      high = start - 1;
    }
  }
  return { text: fits ?? '', truncated: true };
}
