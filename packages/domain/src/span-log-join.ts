/**
 * GenAI events sent as OTLP log records (the OpenAI instrumentation's prompts and
 * completions, among others) folded into the span they name, so that its messages and
 * readable input/output are what they would be had the events come as span events.
 *
 * Span events are the normalizer's last source of messages (conventions/genai.ts): a span
 * whose attributes already carry a conversation keeps it. The fold follows that order: a
 * column is filled from the records only when the span's own sources left it empty. It
 * reads the span's own message events together with all its records, in time order, and
 * remembers which columns it filled (`log_record_fields`), so folding again with more
 * records (a choice that came in a later batch) recomputes those columns from all of
 * them, and folding the same records twice changes nothing.
 */
import { truncateUtf8 } from './attributes.ts';
import { EVALUATION_RESULT_EVENT } from './evaluation-results.ts';
import { conversationFromEvents, GENAI_MESSAGE_EVENTS, type GenAiEventRecord } from './messages/events.ts';
import { readableInput, readableOutput } from './messages/readable.ts';
import { storedJson } from './messages/stored.ts';
import type { JoinedField, SpanRow } from './span-row.ts';

/** Log records ingest keeps for their span: GenAI message events and evaluation results. */
export function isSpanLogEvent(name: string): boolean {
  return GENAI_MESSAGE_EVENTS.has(name) || name === EVALUATION_RESULT_EVENT;
}

/** The columns the fold reads and writes. */
export type JoinableSpan = Pick<
  SpanRow,
  'input' | 'output' | 'input_messages' | 'output_messages' | 'system_instructions' | 'events' | 'quality_flags' | 'log_record_fields'
>;

/** A GenAI event record as the writer keeps it for its span. */
export interface SpanEventRecord extends GenAiEventRecord {
  timeUnixNano: string;
}

/** The span's columns with its records folded in (a new object; the input is not changed). */
export function foldLogRecords<T extends JoinableSpan>(row: T, records: readonly SpanEventRecord[], maxValueBytes: number): T {
  const out: T = { ...row };
  // Start from what the span itself gave: columns an earlier fold filled are recomputed.
  for (const field of row.log_record_fields) out[field] = '';
  const conversation = conversationFromEvents(inTimeOrder([...ownMessageEvents(row.events), ...records]));
  const filled: JoinedField[] = [];
  let truncated = false;
  const fill = (field: JoinedField, text: string, cut = false) => {
    if (out[field] !== '' || text === '') return;
    out[field] = text;
    filled.push(field);
    truncated ||= cut;
  };
  const limited = (text: string) => {
    const cut = truncateUtf8(text, maxValueBytes);
    return { text: cut ?? text, cut: cut !== undefined };
  };
  const system = storedJson(conversation.system, maxValueBytes);
  fill('system_instructions', system.text, system.truncated);
  if (conversation.input !== undefined) {
    const stored = storedJson(conversation.input, maxValueBytes);
    fill('input_messages', stored.text, stored.truncated);
    const text = limited(readableInput(conversation.input));
    fill('input', text.text, text.cut);
  }
  if (conversation.output !== undefined) {
    const stored = storedJson(conversation.output, maxValueBytes);
    fill('output_messages', stored.text, stored.truncated);
    const text = limited(readableOutput(conversation.output));
    fill('output', text.text, text.cut);
  }
  out.log_record_fields = filled;
  if (truncated && !out.quality_flags.includes('attribute_truncated')) out.quality_flags = [...out.quality_flags, 'attribute_truncated'];
  return out;
}

/** The span's own GenAI message events, from the stored events JSON. */
function ownMessageEvents(eventsJson: string): SpanEventRecord[] {
  if (eventsJson === '' || eventsJson === '[]') return [];
  const events = JSON.parse(eventsJson) as SpanEventRecord[];
  return events.filter((e) => GENAI_MESSAGE_EVENTS.has(e.name));
}

function inTimeOrder(records: SpanEventRecord[]): SpanEventRecord[] {
  return records.sort((a, b) => compareNanos(a.timeUnixNano, b.timeUnixNano));
}

function compareNanos(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}
