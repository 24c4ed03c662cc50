/**
 * Pathological OTLP/HTTP bodies for the ingest fuzz test and bench: random and mutated
 * protobuf and JSON, deep nesting, 100,000 attributes, megabyte strings, bad gzip and a gzip
 * bomb. Seeded, so a failing body can be made again. The large ones are built once and
 * reused: generating them must not be what the fuzz measures.
 */
import { gzipSync } from 'node:zlib';
import type protobuf from 'protobufjs';
import { encodeRequest, fieldTag, hex, nested, rawSpanRequest, requestWithSpan } from '../../packages/otlp/src/testing/encode.ts';
import { randomBytes, randomInt, seededRandom } from '../../packages/otlp/src/testing/random.ts';

export interface FuzzBody {
  kind: string;
  body: Uint8Array;
  contentType: 'application/x-protobuf' | 'application/json';
  gzip: boolean;
}

const MiB = 1024 * 1024;
const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** An OTLP/JSON request with one span whose attributes are `attributes`. */
function jsonRequest(attributes: object[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: 'f0'.repeat(16),
                spanId: '00f067aa0ba902b7',
                name: 'fuzz',
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000000000001',
                attributes,
              },
            ],
          },
        ],
      },
    ],
  });
}

/** A request whose one attribute is arrays nested `depth` deep around a string, written as text (JSON.stringify would recurse that deep). */
function deepJson(depth: number): string {
  const value = `${'{"arrayValue":{"values":['.repeat(depth)}{"stringValue":"bottom"}${']}}'.repeat(depth)}`;
  return jsonRequest([{ key: 'deep', value: 'VALUE' }]).replace('"VALUE"', value);
}

/** The same as protobuf: Span.attributes (9) > KeyValue.value (2) > AnyValue.array_value (5) > ArrayValue.values (1) … */
function deepProtobuf(depth: number): Uint8Array {
  const writeValue = (w: protobuf.Writer, level: number): void => {
    if (level === 0) w.uint32(fieldTag(1, 2)).string('bottom');
    else nested(w, 5, (w) => nested(w, 1, (w) => writeValue(w, level - 1)));
  };
  return rawSpanRequest((w) => {
    w.uint32(fieldTag(1, 2)).bytes(hex('f0'.repeat(16)));
    w.uint32(fieldTag(2, 2)).bytes(hex('00f067aa0ba902b7'));
    w.uint32(fieldTag(5, 2)).string('deep');
    w.uint32(fieldTag(7, 1)).fixed64(1);
    w.uint32(fieldTag(8, 1)).fixed64(2);
    nested(w, 9, (w) => {
      w.uint32(fieldTag(1, 2)).string('deep');
      nested(w, 2, (w) => writeValue(w, depth));
    });
  });
}

function manyAttributes(count: number) {
  return Array.from({ length: count }, (_, i) => ({ key: `attr.${i}`, value: { stringValue: `v${i}` } }));
}

function megabyteStrings() {
  return ['a', 'b', 'c'].map((key) => ({ key: `big.${key}`, value: { stringValue: key.repeat(MiB) } }));
}

/** The costliest body to decode (100,000 attributes as OTLP/JSON), to measure how fast this machine is right now. */
export function widestJsonBody(): Uint8Array {
  return Buffer.from(jsonRequest(manyAttributes(100_000)));
}

/** Bodies too large to build per request: made on first use. */
function largeBodies() {
  const valid = encodeRequest(requestWithSpan({ attributes: [{ key: 'k', value: { stringValue: 'v' } }] }));
  const wide = widestJsonBody();
  return {
    validProtobuf: valid,
    validJson: jsonRequest([{ key: 'k', value: { stringValue: 'v' } }]),
    wideJson: wide,
    wideProtobuf: encodeRequest(requestWithSpan({ attributes: manyAttributes(100_000) })),
    wideGzip: gzipSync(wide),
    bigJson: Buffer.from(jsonRequest(megabyteStrings())),
    bigProtobuf: encodeRequest(requestWithSpan({ attributes: megabyteStrings() })),
    // 80 MiB of zeros in ~80 KiB: past INGEST_MAX_BODY_BYTES once inflated.
    bomb: gzipSync(Buffer.alloc(80 * MiB)),
    deepJson: [20, 60, 100, 10_000].map((depth) => Buffer.from(deepJson(depth))),
    deepProtobuf: [20, 60, 100].map(deepProtobuf),
  };
}

function mutate(random: () => number, body: Uint8Array): Uint8Array {
  const out = Uint8Array.from(body);
  const edits = 1 + randomInt(random, 8);
  for (let i = 0; i < edits; i++) out[randomInt(random, out.length)] = randomInt(random, 256);
  return random() < 0.3 ? out.subarray(0, randomInt(random, out.length)) : out;
}

const JSON_NOISE = '{}[]":,0123456789truefalsenull "resourceSpans" "attributes" "value" "kvlistValue" "arrayValue"';

/** Returns a generator of fuzz bodies; `next()` is cheap once the large bodies are built. */
export function fuzzBodies(seed: number): () => FuzzBody {
  const random = seededRandom(seed);
  const large = largeBodies();
  const pick = <T>(items: readonly T[]): T => items[randomInt(random, items.length)]!;
  const makers: Array<() => FuzzBody> = [
    () => ({ kind: 'random protobuf', body: randomBytes(random, 1 + randomInt(random, 4096)), contentType: PROTOBUF, gzip: false }),
    () => ({ kind: 'mutated protobuf', body: mutate(random, large.validProtobuf), contentType: PROTOBUF, gzip: false }),
    () => ({
      kind: 'random JSON',
      body: Buffer.from(Array.from({ length: 1 + randomInt(random, 2000) }, () => JSON_NOISE[randomInt(random, JSON_NOISE.length)]).join('')),
      contentType: JSON_TYPE,
      gzip: false,
    }),
    () => ({ kind: 'mutated JSON', body: mutate(random, Buffer.from(large.validJson)), contentType: JSON_TYPE, gzip: false }),
    () => ({ kind: 'deep JSON', body: pick(large.deepJson), contentType: JSON_TYPE, gzip: false }),
    () => ({ kind: 'deep protobuf', body: pick(large.deepProtobuf), contentType: PROTOBUF, gzip: false }),
    () => ({ kind: '100k attributes JSON', body: large.wideJson, contentType: JSON_TYPE, gzip: false }),
    () => ({ kind: '100k attributes protobuf', body: large.wideProtobuf, contentType: PROTOBUF, gzip: false }),
    () => ({ kind: '100k attributes gzip JSON', body: large.wideGzip, contentType: JSON_TYPE, gzip: true }),
    () => ({ kind: 'megabyte strings JSON', body: large.bigJson, contentType: JSON_TYPE, gzip: false }),
    () => ({ kind: 'megabyte strings protobuf', body: large.bigProtobuf, contentType: PROTOBUF, gzip: false }),
    () => ({ kind: 'bad gzip', body: random() < 0.5 ? randomBytes(random, 1 + randomInt(random, 2048)) : mutate(random, large.wideGzip), contentType: pick([PROTOBUF, JSON_TYPE]), gzip: true }),
    () => ({ kind: 'gzip bomb', body: large.bomb, contentType: PROTOBUF, gzip: true }),
  ];
  return () => pick(makers)();
}

/** One fuzz body's answer as the client saw it. */
export interface FuzzAnswer {
  kind: string;
  status: number;
  retryAfter: string | null;
  ms: number;
  /** performance.now() when it was sent. */
  sentAt: number;
  /** The service's Server-Timing header: where the export's time went, stage by stage. */
  stages: string | null;
  /** Why there was no answer (status 0): the connection error's code and message. */
  error?: string;
}

/** A fetch failure's cause as undici reports it (`UND_ERR_SOCKET: other side closed`). */
function failureOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${cause.code ?? 'error'}: ${cause.message ?? ''}` : String(err);
}

/** Posts `count` fuzz bodies, `concurrency` at a time, and returns every answer. A connection error counts as status 0. */
export async function sendFuzz(opts: { url: string; key: string; next: () => FuzzBody; count: number; concurrency: number }): Promise<FuzzAnswer[]> {
  const answers: FuzzAnswer[] = [];
  let sent = 0;
  const lane = async () => {
    while (sent < opts.count) {
      sent++;
      const fuzz = opts.next();
      const started = performance.now();
      const headers: Record<string, string> = { 'content-type': fuzz.contentType, 'x-api-key': opts.key };
      if (fuzz.gzip) headers['content-encoding'] = 'gzip';
      try {
        const res = await fetch(`${opts.url}/api/v1/traces/otlp`, { method: 'POST', headers, body: fuzz.body as Uint8Array<ArrayBuffer> });
        await res.arrayBuffer();
        const stages = res.headers.get('server-timing');
        answers.push({ kind: fuzz.kind, status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started, sentAt: started, stages });
      } catch (err) {
        answers.push({ kind: fuzz.kind, status: 0, retryAfter: null, ms: performance.now() - started, sentAt: started, stages: null, error: failureOf(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, lane));
  return answers;
}

/** Answers a fuzz must never get: a 5xx other than 503 with Retry-After, or no answer at all. */
export function badAnswers(answers: FuzzAnswer[]): FuzzAnswer[] {
  return answers.filter((a) => a.status === 0 || (a.status >= 500 && !(a.status === 503 && a.retryAfter !== null)));
}
