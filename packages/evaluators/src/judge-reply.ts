import * as v from 'valibot';

/** What a model judge answers: a number in a range, true/false, or one of some labels. */
export const outputSchema = v.variant('type', [
  v.strictObject({
    type: v.literal('numeric'),
    min: v.optional(v.pipe(v.number(), v.finite()), 0),
    max: v.optional(v.pipe(v.number(), v.finite()), 1),
  }),
  v.strictObject({ type: v.literal('boolean') }),
  v.strictObject({
    type: v.literal('label'),
    labels: v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100))), v.minLength(2, 'give at least 2 labels'), v.maxLength(50)),
  }),
]);
export type OutputSpec = v.InferOutput<typeof outputSchema>;

export type JudgedValue = { value: number | boolean; stringValue: null } | { value: null; stringValue: string };
export type ReplyParse = ({ ok: true; reasoning: string } & JudgedValue) | { ok: false; error: string };

/** The instruction appended to every judge prompt, so replies can be parsed. */
export function replyInstruction(output: OutputSpec): string {
  const score =
    output.type === 'numeric'
      ? `a number from ${output.min} to ${output.max}`
      : output.type === 'boolean'
        ? 'true or false'
        : `exactly one of ${output.labels.map((l) => JSON.stringify(l)).join(', ')}`;
  return `Reply with a JSON object only, no other text: {"score": <${score}>, "reasoning": "<one or two sentences>"}`;
}

/**
 * Parses a judge's reply. The JSON object may sit in a code fence or among other words;
 * anything that does not give a score of the expected type is a failure with its reason,
 * never a made-up score.
 */
export function parseJudgeReply(content: string, output: OutputSpec): ReplyParse {
  const object = extractJsonObject(content);
  if (!object) return { ok: false, error: `the model's reply holds no JSON object: ${preview(content)}` };
  if (!('score' in object)) return { ok: false, error: `the model's reply has no "score": ${preview(content)}` };
  const raw = object.score;
  const reasoning = typeof object.reasoning === 'string' ? object.reasoning : '';
  if (output.type === 'numeric') {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isFinite(n)) return { ok: false, error: `score ${JSON.stringify(raw)} is not a number` };
    if (n < output.min || n > output.max) return { ok: false, error: `score ${n} is outside ${output.min}..${output.max}` };
    return { ok: true, value: n, stringValue: null, reasoning };
  }
  if (output.type === 'boolean') {
    const b = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : null;
    if (b === null) return { ok: false, error: `score ${JSON.stringify(raw)} is not true or false` };
    return { ok: true, value: b, stringValue: null, reasoning };
  }
  const label = typeof raw === 'string' ? output.labels.find((l) => l.toLowerCase() === raw.trim().toLowerCase()) : undefined;
  if (label === undefined) return { ok: false, error: `score ${JSON.stringify(raw)} is not one of ${output.labels.join(', ')}` };
  return { ok: true, value: null, stringValue: label, reasoning };
}

function extractJsonObject(content: string): Record<string, unknown> | null {
  const candidates = [content.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  if (fenced) candidates.push(fenced[1]!.trim());
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start >= 0 && end > start) candidates.push(content.slice(start, end + 1));
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
