/**
 * A test's database handle that records the SQL it runs, to check which statements a read issues
 * (a page served from kept bytes reads no text, row-bytes-cache.ts), and can run something ahead of
 * each single statement, to change rows between two reads of one request.
 *
 * @example
 *   const statements: string[] = [];
 *   const db = recordingDb(t.db, statements, async (sql) => { if (sql.includes('...')) await change(); });
 */
import { type Database, queryAll, type Statement } from '../../src/db/database.js';

export function recordingDb(
  db: Database,
  statements: string[],
  before?: (sql: string) => Promise<void>,
): Database {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'query') {
        return async (sql: string, params?: unknown[]) => {
          statements.push(sql);
          await before?.(sql);
          return target.query(sql, params);
        };
      }
      if (property === 'queryAll') {
        return (all: Statement[]) => {
          statements.push(...all.map((statement) => statement.sql));
          return queryAll(target, all);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
