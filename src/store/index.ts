export { allItems, type PagedSearch } from './pages.js';
export { MIGRATIONS, migrate } from './sqlite/migrations.js';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite/store.js';
export * from './types.js';
