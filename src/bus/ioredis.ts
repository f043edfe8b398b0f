// The Redis client, imported (`await import`) by whatever connects to Redis, so a server without
// Redis never loads it (in dist/ it is a bundle of its own, lazy-ioredis.cjs). A static re-export of
// the named export: the same from the sources (Node's ESM view of a CommonJS package) and the bundle.
export { Redis } from 'ioredis';
