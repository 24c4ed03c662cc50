import { describe, expect, it } from 'vitest';
import { findPii } from './pii.ts';

describe('findPii', () => {
  it('finds the common kinds of personal data', () => {
    expect(findPii('write to jane.doe@example.com or +1 415-555-0134')).toEqual({ email: 1, phone: 1 });
    expect(findPii('card 4111 1111 1111 1111, ssn 123-45-6789')).toMatchObject({ credit_card: 1, us_ssn: 1 });
    expect(findPii('from 192.168.10.7')).toEqual({ ip_address: 1 });
    expect(findPii('IBAN DE89 3704 0044 0532 0130 00')).toMatchObject({ iban: 1 });
  });

  it('leaves numbers that are not personal data alone', () => {
    expect(findPii('order 12345 shipped, 3 items, version 1.2.3')).toEqual({});
    // 16 digits failing the Luhn check are not a card number.
    expect(findPii('ref 1234 5678 9012 3456').credit_card).toBeUndefined();
  });

  it('looks only for the kinds asked', () => {
    expect(findPii('jane@example.com 123-45-6789', ['us_ssn'])).toEqual({ us_ssn: 1 });
  });
});
