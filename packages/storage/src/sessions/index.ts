/** Sessions: the traces that share a session id, listed and one by one, with their scores. */
export { MAX_SESSION_SCORES, MAX_SESSION_TRACES, MAX_SESSION_USERS, getSession, listSessions } from './read.ts';
export type { SessionCursor, SessionDetail, SessionPage, SessionRecord } from './read.ts';
