import { Hono } from 'hono';
import type { AuthEnv } from '@aos/http';
import { QUERY_FIELDS } from '@aos/storage';

/** GET /traces/query-fields: the fields the query language knows, with their types. */
export function queryFieldRoutes() {
  const app = new Hono<AuthEnv>();
  app.get('/', (c) => c.json({ data: QUERY_FIELDS }));
  return app;
}
