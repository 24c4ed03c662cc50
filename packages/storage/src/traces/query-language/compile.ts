import { spanFieldOf, type FieldBinding, type Operator } from './fields.ts';
import { parseQuery, type QueryNode, type Value } from './parser.ts';

/**
 * Compiles a trace query to one boolean SQL expression over the aggregated trace row
 * (the columns of TRACE_COLUMNS_SQL). Span and score predicates become
 * `trace_id IN (subquery)`, so they combine with trace predicates under and / or / not
 * exactly as written. Values and map keys are bound as `{qN:Type}` parameters; the
 * subqueries use the filter's own `projectId`, `scanStart` and `scanEnd` parameters.
 */

export interface CompiledQuery {
  condition: string;
  params: Record<string, unknown>;
}

/** Compiles the `query=` text of a trace filter; throws QueryLanguageError for a syntax or type error. */
export function compileTraceQuery(text: string): CompiledQuery {
  const compiler = new Compiler();
  // Parenthesised so it can be joined to other conditions with AND as it is.
  const condition = `(${compiler.node(parseQuery(text), 'trace')})`;
  return { condition, params: compiler.params };
}

/** Traces of the scanned window that have a span meeting `condition` (as filter.ts scopes it). */
function anySpan(condition: string, none = false): string {
  return `trace_id ${none ? 'NOT IN' : 'IN'} (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND ${condition})`;
}

/** Traces with a live score (on the trace or one of its spans) meeting `condition`. */
function anyScore(condition: string, none = false): string {
  return `trace_id ${none ? 'NOT IN' : 'IN'} (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND ${condition})`;
}

class Compiler {
  readonly params: Record<string, unknown> = {};
  private next = 0;

  private bind(value: unknown, type: string): string {
    const name = `q${this.next++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  node(node: QueryNode, scope: 'trace' | 'span'): string {
    switch (node.kind) {
      case 'and':
      case 'or':
        return `(${node.items.map((item) => this.node(item, scope)).join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `NOT (${this.node(node.item, scope)})`;
      case 'hasSpan':
        return anySpan(this.node(node.item, 'span'));
      case 'predicate':
        return this.predicate(node);
    }
  }

  private predicate(p: Extract<QueryNode, { kind: 'predicate' }>): string {
    if (p.field.score) return this.score(p);
    if (!p.field.anySpan) return this.value(p.field, p.key, p.op, p.values);
    // "Some span has X = v" negated is "no span has X = v", not "some span has another X".
    const span = spanFieldOf(p.field);
    if (p.op === '!=') return anySpan(this.value(span, p.key, '=', p.values), true);
    return anySpan(this.value(span, p.key, p.op, p.values));
  }

  private score(p: Extract<QueryNode, { kind: 'predicate' }>): string {
    const conditions = [`name = ${this.bind(p.key, 'String')}`];
    const op = p.op === '!=' ? '=' : p.op;
    const [first] = p.values;
    if (first) {
      const column = first.kind === 'number' ? 'value' : 'string_value';
      const type = first.kind === 'number' ? 'Float64' : 'String';
      conditions.push(
        op === 'in' ? `has(${this.bind(p.values.map((v) => v.value), `Array(${type})`)}, assumeNotNull(${column}))` : `${column} ${op} ${this.bind(first.value, type)}`,
      );
      conditions.push(`${column} IS NOT NULL`);
    }
    return anyScore(conditions.join(' AND '), p.op === '!=');
  }

  /** A predicate on a value of the row in scope (the aggregated trace, or one span). */
  private value(field: FieldBinding, key: string | undefined, op: Operator, values: Value[]): string {
    let expr = field.sql ?? '';
    let exists = `${expr} != ''`;
    if (field.keyedSql) {
      const keyed = field.keyedSql(this.bind(key, 'String'));
      expr = keyed.value;
      exists = keyed.exists;
    }
    if (op === 'exists') return field.type === 'array' ? `notEmpty(${expr})` : exists;
    const [first] = values;
    if (!first) throw new Error(`operator ${op} without a value`);
    const numeric = first.kind === 'number';
    const type = numeric ? 'Float64' : 'String';
    // Map values are text: a number compares with the text read as a number.
    const operand = numeric && field.type === 'map' ? `toFloat64OrNull(${expr})` : expr;
    const one = () => this.bind(first.value, type);

    if (field.type === 'array') {
      switch (op) {
        case '=':
          return `has(${expr}, ${one()})`;
        case '!=':
          return `NOT has(${expr}, ${one()})`;
        case 'in':
          return `hasAny(${expr}, ${this.bind(values.map((v) => v.value), 'Array(String)')})`;
        case 'contains':
          return `arrayExists(q_item -> positionCaseInsensitiveUTF8(q_item, ${one()}) > 0, ${expr})`;
        case 'startswith':
          return `arrayExists(q_item -> startsWith(q_item, ${one()}), ${expr})`;
        default:
          throw new Error(`operator ${op} on an array field`);
      }
    }
    switch (op) {
      case 'contains':
        return `positionCaseInsensitiveUTF8(${expr}, ${one()}) > 0`;
      case 'startswith':
        return `startsWith(${expr}, ${one()})`;
      case 'in':
        if (!numeric) return `has(${this.bind(values.map((v) => v.value), 'Array(String)')}, ${operand})`;
        if (field.type !== 'map') return `has(${this.bind(values.map((v) => v.value), 'Array(Float64)')}, toFloat64(${operand}))`;
        return `(${operand} IS NOT NULL AND has(${this.bind(values.map((v) => v.value), 'Array(Float64)')}, assumeNotNull(${operand})))`;
      default:
        return `${operand} ${op} ${one()}`;
    }
  }
}
