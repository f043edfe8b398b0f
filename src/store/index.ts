export { LocalLocks } from './locks.js';
export { allItems, type PagedSearch } from './pages.js';
export { migratePostgres, PG_MIGRATIONS, type PgMigration } from './postgres/migrations.js';
export { openPostgresStore, type PostgresStoreOptions } from './postgres/store.js';
export { DatabaseUnavailableError, redactUrl } from './postgres/url.js';
export { MIGRATIONS, migrate } from './sqlite/migrations.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.js';
export * from './types.js';
