export { startLocalRedis } from './redis-server.ts';
export type { LocalRedis, LocalRedisOptions } from './redis-server.ts';
export { findFreePort } from './free-port.ts';
