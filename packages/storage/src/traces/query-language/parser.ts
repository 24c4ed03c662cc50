import { MAX_LIST_ITEMS, MAX_NESTING, MAX_NUMBER, MAX_QUERY_LENGTH, MAX_STRING_LENGTH, QueryLanguageError } from './errors.ts';
import { fieldNames, lookupField, type FieldBinding, type FieldScope, type Operator } from './fields.ts';
import { describeToken, tokenize, type Token } from './tokens.ts';

/**
 * The parser of the trace query language: recursive descent over the grammar below,
 * resolving each field against the catalogue and checking each value's type as it goes,
 * so every error names the leftmost place that is wrong.
 *
 *   query      = expr ;
 *   expr       = and , { "or" , and } ;
 *   and        = unary , { "and" , unary } ;
 *   unary      = "not" , unary | primary ;
 *   primary    = "(" , expr , ")" | "has" , "span" , "(" , expr , ")" | predicate ;
 *   predicate  = field , ( compare-op , value
 *                        | "in" , "[" , value , { "," , value } , "]"
 *                        | ( "contains" | "startswith" ) , string
 *                        | "exists" ) ;
 *   compare-op = "=" | "==" | "!=" | ">" | ">=" | "<" | "<=" ;
 *   field      = identifier , [ "[" , string , "]" ] ;
 *   value      = string | number | duration | "true" | "false" ;
 *   string     = '"' , { char | escape } , '"' | "'" , { char | escape } , "'" ;
 *   escape     = "\" , ( "\" | '"' | "'" | "n" | "t" | "r" | "0" | "u" , 4 * hex-digit ) ;
 *   number     = [ "-" ] , digits , [ "." , digits ] ;
 *   duration   = number , ( "ms" | "s" | "m" | "h" ) ;
 *   identifier = letter-or-underscore , { letter-or-underscore | digit } ;
 *
 * Keywords (and, or, not, in, contains, startswith, exists, has, span, true, false) and
 * field names are case-insensitive. Inside `has span(...)` fields are span fields; a
 * span clause cannot nest another.
 */

/** A checked value: durations are already milliseconds. */
export type Value = { kind: 'string'; value: string } | { kind: 'number'; value: number };

export type QueryNode =
  | { kind: 'and' | 'or'; items: QueryNode[] }
  | { kind: 'not'; item: QueryNode }
  | { kind: 'hasSpan'; item: QueryNode }
  | { kind: 'predicate'; field: FieldBinding; key?: string; op: Operator; values: Value[] };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'contains', 'startswith', 'exists', 'has', 'true', 'false']);
const START_OF_CONDITION = "a field, 'not', '(' or 'has span('";

type Literal = { kind: 'string'; value: string } | { kind: 'number'; value: number } | { kind: 'duration'; value: number } | { kind: 'boolean'; value: boolean };
type LiteralKind = Literal['kind'];

/** Parses and checks a query; throws QueryLanguageError with the position and what was expected. */
export function parseQuery(text: string): QueryNode {
  if (text.length > MAX_QUERY_LENGTH) {
    throw new QueryLanguageError(MAX_QUERY_LENGTH, `a query of at most ${MAX_QUERY_LENGTH} characters`, `${text.length} characters`);
  }
  const parser = new Parser(tokenize(text));
  const node = parser.expr('trace');
  parser.expectEnd();
  return node;
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private get token(): Token {
    return this.tokens[this.i]!;
  }

  private fail(expected: string, token = this.token): never {
    throw new QueryLanguageError(token.pos, expected, describeToken(token));
  }

  private isKeyword(word: string, token = this.token): boolean {
    return token.kind === 'ident' && token.value.toLowerCase() === word;
  }

  private isPunct(p: string): boolean {
    return this.token.kind === 'punct' && this.token.value === p;
  }

  private expectPunct(p: string, expected = `'${p}'`): Token {
    if (!this.isPunct(p)) this.fail(expected);
    return this.tokens[this.i++]!;
  }

  expectEnd(): void {
    if (this.token.kind !== 'eof') this.fail("'and', 'or' or the end of the query");
  }

  private enter(token: Token): void {
    if (++this.depth > MAX_NESTING) this.fail(`at most ${MAX_NESTING} levels of nesting`, token);
  }

  expr(scope: FieldScope): QueryNode {
    const items = [this.and(scope)];
    while (this.isKeyword('or')) {
      this.i++;
      items.push(this.and(scope));
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(scope: FieldScope): QueryNode {
    const items = [this.unary(scope)];
    while (this.isKeyword('and')) {
      this.i++;
      items.push(this.unary(scope));
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private unary(scope: FieldScope): QueryNode {
    if (!this.isKeyword('not')) return this.primary(scope);
    this.enter(this.token);
    this.i++;
    const item = this.unary(scope);
    this.depth--;
    return { kind: 'not', item };
  }

  private primary(scope: FieldScope): QueryNode {
    const token = this.token;
    if (this.isPunct('(')) {
      this.enter(token);
      this.i++;
      const node = this.expr(scope);
      this.expectPunct(')', "'and', 'or' or ')'");
      this.depth--;
      return node;
    }
    if (this.isKeyword('has')) {
      if (scope === 'span') this.fail(`a span field (${fieldNames('span').join(', ')}); has span(...) cannot be nested`);
      this.enter(token);
      this.i++;
      if (!this.isKeyword('span')) this.fail("'span' after 'has'");
      this.i++;
      this.expectPunct('(', "'(' after 'has span'");
      const item = this.expr('span');
      this.expectPunct(')', "'and', 'or' or ')'");
      this.depth--;
      return { kind: 'hasSpan', item };
    }
    if (token.kind !== 'ident' || KEYWORDS.has(token.value.toLowerCase())) this.fail(START_OF_CONDITION);
    return this.predicate(scope);
  }

  private predicate(scope: FieldScope): QueryNode {
    const nameToken = this.token;
    const field = lookupField(scope, nameToken.value);
    if (!field) {
      const where = scope === 'span' ? 'a span field' : 'a field';
      this.fail(`${where} (${fieldNames(scope).join(', ')})`);
    }
    this.i++;
    let key: string | undefined;
    if (field.keyed) {
      this.expectPunct('[', `'[' after ${field.name}, as in ${field.name}["key"]`);
      if (this.token.kind !== 'string') this.fail(`a quoted key after '${field.name}['`);
      key = this.token.value;
      if (key === '') this.fail('a key that is not empty');
      this.i++;
      this.expectPunct(']', "']'");
    }
    const opToken = this.token;
    const op = operatorOf(opToken);
    if (op === undefined || !field.operators.includes(op)) {
      this.fail(`an operator of ${field.name}: one of ${field.operators.join(', ')}`);
    }
    this.i++;
    if (op === 'exists') return { kind: 'predicate', field, key, op, values: [] };
    if (op !== 'in') return { kind: 'predicate', field, key, op, values: [this.value(field, op, opToken)] };

    this.expectPunct('[', "'[' after 'in'");
    const values = [this.value(field, op, opToken)];
    while (this.isPunct(',')) {
      this.i++;
      if (values.length >= MAX_LIST_ITEMS) this.fail(`']' (a list holds at most ${MAX_LIST_ITEMS} values)`);
      const valueToken = this.token;
      const value = this.value(field, op, opToken);
      if (value.kind !== values[0]!.kind) this.fail(`a ${values[0]!.kind} like the list's first value`, valueToken);
      values.push(value);
    }
    this.expectPunct(']', "',' or ']'");
    return { kind: 'predicate', field, key, op, values };
  }

  /** Reads one value and checks it against the field and operator. */
  private value(field: FieldBinding, op: Operator, opToken: Token): Value {
    const token = this.token;
    const { kinds, expected } = accepted(field, op);
    const literal = literalOf(token);
    if (!literal || !kinds.includes(literal.kind)) this.fail(`${expected} after '${opToken.text}'`);
    this.i++;
    if (literal.kind === 'string' && literal.value.length > MAX_STRING_LENGTH) this.fail(`a text of at most ${MAX_STRING_LENGTH} characters`, token);
    if ((literal.kind === 'number' || literal.kind === 'duration') && Math.abs(literal.value) > MAX_NUMBER) {
      // Values are bound as Float64: beyond 2^53 a double no longer holds every integer, and far beyond any stored count, cost or duration.
      this.fail(`a number between -${MAX_NUMBER} and ${MAX_NUMBER}${literal.kind === 'duration' ? ' milliseconds' : ''}`, token);
    }
    if (field.values && literal.kind === 'string') {
      const value = literal.value.toLowerCase();
      if (!field.values.includes(value)) this.fail(`${field.name} to be one of ${field.values.map((v) => JSON.stringify(v)).join(', ')}`, token);
      return { kind: 'string', value };
    }
    switch (literal.kind) {
      case 'string':
        return literal;
      case 'number':
      case 'duration':
        return { kind: 'number', value: literal.value };
      case 'boolean':
        // Attributes hold booleans as text; scores as 1 / 0.
        return field.type === 'score' ? { kind: 'number', value: literal.value ? 1 : 0 } : { kind: 'string', value: String(literal.value) };
    }
  }
}

function operatorOf(token: Token): Operator | undefined {
  if (token.kind === 'op') return token.value as Operator;
  if (token.kind !== 'ident') return undefined;
  const word = token.value.toLowerCase();
  return word === 'in' || word === 'contains' || word === 'startswith' || word === 'exists' ? word : undefined;
}

function literalOf(token: Token): Literal | undefined {
  switch (token.kind) {
    case 'string':
      return { kind: 'string', value: token.value };
    case 'number':
      return { kind: 'number', value: token.number };
    case 'duration':
      return { kind: 'duration', value: token.number };
    case 'ident': {
      const word = token.value.toLowerCase();
      return word === 'true' || word === 'false' ? { kind: 'boolean', value: word === 'true' } : undefined;
    }
    default:
      return undefined;
  }
}

/** Which literals a field takes after an operator, and how to say so. */
function accepted(field: FieldBinding, op: Operator): { kinds: LiteralKind[]; expected: string } {
  const ordered = op === '>' || op === '>=' || op === '<' || op === '<=';
  if (op === 'contains' || op === 'startswith') return { kinds: ['string'], expected: 'a string' };
  if (field.values) return { kinds: ['string'], expected: `one of ${field.values.map((v) => JSON.stringify(v)).join(', ')}` };
  switch (field.type) {
    case 'string':
    case 'array':
    case 'enum':
      return { kinds: ['string'], expected: 'a string' };
    case 'number':
      return { kinds: ['number'], expected: 'a number' };
    case 'duration':
      return { kinds: ['number', 'duration'], expected: 'a number or duration' };
    case 'map':
      return ordered
        ? { kinds: ['number'], expected: 'a number' }
        : { kinds: ['string', 'number', 'boolean'], expected: 'a string, number or boolean' };
    case 'score':
      return ordered
        ? { kinds: ['number'], expected: 'a number' }
        : { kinds: ['number', 'boolean', 'string'], expected: 'a number, boolean or label string' };
  }
}
