// The Redis client, imported (`await import`) by whatever connects to Redis, so a server without
// Redis never loads it (it is its own chunk in dist/). A static re-export: a CommonJS package's named
// exports survive bundling only this way (the chunk of a bare `import('ioredis')` has a default only).
export { Redis } from 'ioredis';
