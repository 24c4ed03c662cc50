/**
 * Check-digit algorithms that turn "looks like a card / IBAN / id number" into
 * "is one", so random digit runs (ids, timestamps) are not masked.
 */

/** Luhn (mod 10) over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** ISO 13616 mod-97 check of an IBAN without spaces (letters count as 10..35). */
export function ibanChecksumValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    // Digits add one decimal place, letters (A=10 ... Z=35) add two.
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97;
    else remainder = (remainder * 100 + (code - 55)) % 97;
  }
  return remainder === 1;
}

/** IBAN length per country (ISO 13616 registry); a country not listed is not an IBAN. */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21,
  CR: 22, CY: 28, CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27,
  GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26,
  IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24,
  ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24,
  TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spanish DNI (8 digits + letter) or NIE (X/Y/Z + 7 digits + letter): the letter is number mod 23. */
export function spanishIdValid(id: string): boolean {
  const first = id[0]!;
  const prefix = first === 'X' ? '0' : first === 'Y' ? '1' : first === 'Z' ? '2' : first;
  const number = Number(prefix + id.slice(1, 8));
  return DNI_LETTERS[number % 23] === id[8];
}

/**
 * French NIR (numéro de sécurité sociale): 13 characters + a 2-digit key equal to
 * 97 - (number mod 97); Corsican departments 2A / 2B count as 19 / 18.
 */
export function frenchNirValid(compact: string): boolean {
  const body = compact.slice(0, 13).replace('2A', '19').replace('2B', '18');
  const key = Number(compact.slice(13, 15));
  return 97 - Number(BigInt(body) % 97n) === key;
}
