/**
 * Personal data detectors for the `pii` check. Patterns look for the common kinds an agent
 * should not echo; card numbers must also pass the Luhn check so order ids are not flagged.
 * The check reports which kinds were found, never the values.
 */
export const PII_KINDS = ['email', 'phone', 'credit_card', 'us_ssn', 'ip_address', 'iban'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

const PATTERNS: Record<PiiKind, RegExp> = {
  email: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  phone: /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{3,4}[\s.-]\d{3,4}(?:[\s.-]\d{2,4})?(?!\w)/g,
  credit_card: /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g,
  us_ssn: /(?<!\d)(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?!\d)/g,
  ip_address: /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])/g,
  iban: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g,
};

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The kinds of personal data found in `text`, each with how many times. */
export function findPii(text: string, kinds: readonly PiiKind[] = PII_KINDS): Partial<Record<PiiKind, number>> {
  const found: Partial<Record<PiiKind, number>> = {};
  for (const kind of kinds) {
    let matches = [...text.matchAll(PATTERNS[kind])].map((m) => m[0]);
    if (kind === 'credit_card') matches = matches.map((m) => m.replace(/[ -]/g, '')).filter((d) => d.length >= 13 && d.length <= 19 && luhn(d));
    if (kind === 'phone') matches = matches.filter((m) => m.replace(/\D/g, '').length >= 9);
    if (matches.length > 0) found[kind] = matches.length;
  }
  return found;
}
