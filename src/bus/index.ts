export { MemoryBus } from './memory.js';
export type { BusListener, BusMessage, EventBus } from './types.js';
