/** A statement as a pure builder returns it: its SQL and the values of its bound parameters. */
export interface Statement {
  query: string;
  params: Record<string, unknown>;
}
