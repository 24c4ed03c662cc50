/**
 * Where the JSON walker is, for error messages such as
 * "resourceSpans[0].scopeSpans[1].spans[3].startTimeUnixNano: expected …".
 *
 * A stack of segments (field names and array indexes) pushed and popped as the
 * walker descends; nothing is formatted unless a value turns out to be wrong.
 * Numbers are small integers, so pushing an index allocates nothing.
 */
import { OtlpDecodeError } from '../../errors.ts';

export class JsonPath {
  private readonly segments: (string | number)[] = [];

  push(segment: string | number): void {
    this.segments.push(segment);
  }

  pop(): void {
    this.segments.pop();
  }

  /** Throws an OtlpDecodeError for `field` (if given) at the current position. */
  fail(field: string | undefined, problem: string): never {
    throw new OtlpDecodeError(`${this.format(field)}: ${problem}`);
  }

  format(field?: string): string {
    let text = '';
    for (const segment of this.segments) {
      text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
    }
    if (field !== undefined) text += text === '' ? field : `.${field}`;
    return text === '' ? '(request)' : text;
  }
}
