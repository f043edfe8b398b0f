export { MemoryBus } from './memory.js';
export { loadRedis, RedisBus, RedisBusError } from './redis.js';
export type { BusListener, BusMessage, EventBus } from './types.js';
