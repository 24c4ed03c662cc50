/**
 * Built-in detectors: a regular expression, a cheap pre-check and an optional
 * validator each.
 *
 * Every regex here runs on the ingest hot path over untrusted text, so each one
 * starts at a distinctive character (or a lookbehind that fails at once inside a
 * run), keeps its quantifiers bounded and has no ambiguous nesting: scanning stays
 * linear in the text's length. The pre-check skips the regex when the text cannot
 * contain a match (no '@' → no email). Validators reject what only looks like a
 * match (Luhn, mod 97, check letters, a JWT header that is not JSON with "alg").
 */
import { isIPv6 } from 'node:net';
import { frenchNirValid, IBAN_LENGTHS, ibanChecksumValid, luhnValid, spanishIdValid } from './checksums.ts';

export const DETECTOR_NAMES = [
  'email',
  'phone',
  'credit_card',
  'iban',
  'national_id',
  'ip_address',
  'api_key',
  'bearer_token',
  'jwt',
  'private_key',
] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

/** A match narrowed to the secret part, or rejected. */
export type MatchRange = readonly [start: number, end: number] | null;

/** One regex with its pre-check and validator. */
export interface Scanner {
  /** Global regex; `lastIndex` is reset before each use. */
  regex: RegExp;
  /** Shortest text the regex can match: shorter values (most attribute values) are skipped at once. */
  minLength: number;
  /** False when the text cannot contain a match: the regex is then skipped. */
  mayContain(text: string): boolean;
  /** Accepts a match (whole match masked), narrows or widens it, or rejects it (null). */
  check?(match: RegExpExecArray): MatchRange;
}

/** A detector is usually one scanner; several when one combined regex would scan slower than its parts. */
export interface Detector extends Scanner {
  name: DetectorName;
  /** Shown by the type_tag and hash replacement styles, e.g. EMAIL → `[EMAIL]`. */
  tag: string;
  /** Further scanners run after the main one (same tag, same replacement). */
  more?: readonly Scanner[];
}

const whole = (m: RegExpExecArray): MatchRange => [m.index, m.index + m[0].length];
/** Group 1 is a prefix kept in clear (e.g. `api_key=`), group 2 the secret. */
const afterPrefix = (m: RegExpExecArray): MatchRange => {
  const start = m.index + m[1]!.length;
  return [start, start + m[2]!.length];
};
const digitsOf = (text: string): string => text.replace(/\D/g, '');
const hasDigit = (text: string): boolean => /\d/.test(text);
const always = (): boolean => true;

// Card brands by leading digits (IIN) and their lengths; a Luhn-valid 19-digit
// nanosecond timestamp ("17...") is not a card because no brand starts with 1.
function cardBrandLengthOk(d: string): boolean {
  const n = d.length;
  const two = Number(d.slice(0, 2));
  const four = Number(d.slice(0, 4));
  if (d[0] === '4') return n === 13 || n === 16 || n === 19; // Visa
  if (two === 34 || two === 37) return n === 15; // Amex
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return n === 16; // Mastercard
  if (d[0] === '6') return n >= 16 && n <= 19; // Discover, UnionPay, Maestro
  if (two === 35) return n >= 16 && n <= 19; // JCB
  if (two === 30 || two === 36 || two === 38 || two === 39) return n >= 14 && n <= 19; // Diners
  return false;
}

const email: Detector = {
  name: 'email',
  tag: 'EMAIL',
  regex: /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![\w-])/g,
  minLength: 6,
  mayContain: (t) => t.includes('@'),
};

// International numbers start with + and a country code; national ones need one of
// the separator layouts people write, so dates (2024-01-15), times, versions (1.2.3)
// and plain long ids (no separators, no +) are not phones.
const phone: Detector = {
  name: 'phone',
  tag: 'PHONE',
  regex: new RegExp(
    '(?:' +
    [
      String.raw`(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){1,2}(?:[ .-]?\d{2,4}){1,4}`, // +44 20 7946 0958, +15551234567
      String.raw`(?<![\w(])\(\d{3}\) ?\d{3}[ .-]\d{4}`, // (555) 123-4567
      String.raw`(?<![\w.-])\d{3}([.-])\d{3}\1\d{4}`, // 555-123-4567, 555.123.4567
      String.raw`(?<![\w.-])0\d{1,4} \d{3,4} ?\d{3,4}`, // 020 7946 0958, 07700 900123
      String.raw`(?<![\w.-])0[1-9](?:([ .])\d{2})(?:\2\d{2}){3}`, // 06 12 34 56 78
    ].join('|') + String.raw`)(?![\w-]|[.:]\d)`,
    'g',
  ),
  minLength: 9,
  mayContain: hasDigit,
  check: (m) => {
    const count = digitsOf(m[0]).length;
    // E.164 allows at most 15 digits; fewer than 8 is not a reachable number.
    return count >= 8 && count <= 15 ? whole(m) : null;
  },
};

const creditCard: Detector = {
  name: 'credit_card',
  tag: 'CREDIT_CARD',
  regex: /(?<![\d-])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d-]?\d)/g,
  minLength: 13,
  mayContain: hasDigit,
  check: (m) => {
    const d = digitsOf(m[0]);
    return cardBrandLengthOk(d) && luhnValid(d) ? whole(m) : null;
  },
};

const iban: Detector = {
  name: 'iban',
  tag: 'IBAN',
  regex: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
  minLength: 15,
  mayContain: hasDigit,
  check: (m) => {
    const compact = m[0].replaceAll(' ', '');
    const length = IBAN_LENGTHS[compact.slice(0, 2)];
    return length === compact.length && ibanChecksumValid(compact) ? whole(m) : null;
  },
};

// National ids (each a documented format with its own validity rule):
//   US SSN with dashes or spaces, excluding area 000/666/900-999, group 00, serial 0000;
//   UK National Insurance number, excluding the prefixes HMRC never issues;
//   French NIR (15 digits, key checked); Spanish DNI / NIE (check letter).
// Group numbers in the combined regex: 1 SSN (2 its separator), 3 NINO, 4 NIR, 5 DNI/NIE.
const SSN = String.raw`(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\2(?!0000)\d{4}`;
const NINO = String.raw`(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]`;
const NIR = String.raw`[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}`;
const DNI = String.raw`[XYZ\d]\d{7}-?[A-Z]`;
const nationalId: Detector = {
  name: 'national_id',
  tag: 'NATIONAL_ID',
  regex: new RegExp(String.raw`(?<![\w-])(?:(${SSN})|(${NINO})|(${NIR})|(${DNI}))(?![\w-])`, 'g'),
  minLength: 9,
  mayContain: hasDigit,
  check: (m) => {
    if (m[1] !== undefined || m[3] !== undefined) return whole(m); // SSN, NINO: the format is the rule
    if (m[4] !== undefined) return frenchNirValid(m[0].replaceAll(' ', '')) ? whole(m) : null;
    return spanishIdValid(m[0].replace('-', '')) ? whole(m) : null;
  },
};

const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isWordOrSeparator = (c: string | undefined): boolean => c !== undefined && /[\w:.]/.test(c);

// IPv6: the regex starts at the first colon, which V8 finds fast (a leading hex
// run would make every letter a-f a start); the check widens the match back over
// the first group's hex digits and lets node:net decide.
function ipv6Range(m: RegExpExecArray): MatchRange {
  const text = m.input;
  let start = m.index;
  while (start > 0 && m.index - start < 4 && isHex(text.charCodeAt(start - 1))) start--;
  if (isWordOrSeparator(text[start - 1])) return null;
  const end = m.index + m[0].length;
  return isIPv6(text.slice(start, end)) ? [start, end] : null;
}

const ipAddress: Detector = {
  name: 'ip_address',
  tag: 'IP_ADDRESS',
  // IPv4, not part of a longer dotted number (so 999.1.1.1 and 1.2.3.4.5 are not addresses).
  regex: new RegExp(String.raw`(?<![\d.])${OCTET}(?:\.${OCTET}){3}(?!\.?\d)`, 'g'),
  minLength: 7,
  mayContain: (t) => t.includes('.'),
  more: [
    {
      regex: /:[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){1,6}(?:(?<=:)\d{1,3}(?:\.\d{1,3}){3})?(?![\w:]|\.\d)/g,
      minLength: 2,
      mayContain: (t) => t.includes(':'),
      check: ipv6Range,
    },
  ],
};

/** `bearer` → `[bB][eE][aA][rR][eE][rR]`: case-insensitive words without the `i` flag,
 *  which would also make the vendor prefixes and key alphabets case-insensitive. */
function caseless(words: string): string {
  return words.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

// Vendor keys by their documented prefixes; then generic assignments
// (`api_key=...`, `"apiKey": "..."`) whose value alone is masked.
const VENDOR_KEYS = [
  String.raw`sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}`, // Anthropic, OpenAI
  String.raw`(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`, // AWS access key ids
  String.raw`gh[pousr]_[A-Za-z0-9]{36,255}`, // GitHub tokens
  String.raw`github_pat_[A-Za-z0-9_]{22,255}`, // GitHub fine-grained tokens
  String.raw`xox[abposr]-[A-Za-z0-9-]{10,200}`, // Slack
  String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,200}`, // Stripe secret and restricted keys
  String.raw`AIza[0-9A-Za-z_-]{35}`, // Google API keys
].join('|');
const KEY_NAMES = caseless(
  String.raw`api[_-]?key|x-api-key|api[_-]?token|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|private[_-]?token`,
);
const apiKey: Detector = {
  name: 'api_key',
  tag: 'API_KEY',
  regex: new RegExp(
    String.raw`(?<![\w-])(?:${VENDOR_KEYS})(?![\w-])` +
      String.raw`|((?<![A-Za-z0-9])(?:${KEY_NAMES})["']?\s{0,3}[:=]\s{0,3}["']?)([A-Za-z0-9_\-.~+/]{8,500}={0,2})`,
    'g',
  ),
  minLength: 15,
  mayContain: always,
  // A real key mixes digits in, so "sk-learn-style-names" or "access_token: refreshed" are not keys.
  check: (m) => (m[1] !== undefined ? (hasDigit(m[2]!) ? afterPrefix(m) : null) : hasDigit(m[0]) ? whole(m) : null),
};

const bearerToken: Detector = {
  name: 'bearer_token',
  tag: 'BEARER_TOKEN',
  regex: new RegExp(
    String.raw`((?<![A-Za-z])(?:${caseless('authorization')}["']?\s{0,3}[:=]\s{0,3}["']?(?:${caseless('(?:bearer|basic|token|digest)')}\s{1,3})?|${caseless('bearer')}\s{1,3}))` +
      String.raw`([A-Za-z0-9\-._~+/]{16,4096}={0,2})`,
    'g',
  ),
  minLength: 23,
  mayContain: (t) => /bearer|authorization/i.test(t),
  // "a Bearer token is required" is prose: a token has digits.
  check: (m) => (hasDigit(m[2]!) ? afterPrefix(m) : null),
};

const jwt: Detector = {
  name: 'jwt',
  tag: 'JWT',
  regex: /(?<![\w-])eyJ[A-Za-z0-9_-]{5,4096}\.[A-Za-z0-9_-]{2,16384}\.[A-Za-z0-9_-]{0,4096}(?![\w-])/g,
  minLength: 12,
  mayContain: (t) => t.includes('eyJ'),
  check: (m) => {
    const header = m[0].slice(0, m[0].indexOf('.'));
    try {
      const parsed: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
      return typeof parsed === 'object' && parsed !== null && typeof (parsed as { alg?: unknown }).alg === 'string' ? whole(m) : null;
    } catch {
      return null;
    }
  },
};

// Through the END line, or to the end of the text when it was cut before it:
// half a private key is still a secret.
const privateKey: Detector = {
  name: 'private_key',
  tag: 'PRIVATE_KEY',
  regex: /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----|$)/g,
  minLength: 27,
  mayContain: (t) => t.includes('-----BEGIN'),
};

export const DETECTORS: Readonly<Record<DetectorName, Detector>> = {
  email,
  phone,
  credit_card: creditCard,
  iban,
  national_id: nationalId,
  ip_address: ipAddress,
  api_key: apiKey,
  bearer_token: bearerToken,
  jwt,
  private_key: privateKey,
};
