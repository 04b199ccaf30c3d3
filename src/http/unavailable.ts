/**
 * Database outages answer 503 `unavailable` instead of 500: the client should retry, and the
 * process must keep running until the database is back.
 */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message, severity } = error as { code?: unknown; message?: unknown; severity?: unknown };
  // A FATAL error ends the session: the database refused or dropped the connection, e.g. 55000
  // "database is not currently accepting connections" or 53300 too many connections.
  if (severity === 'FATAL') return true;
  if (typeof code === 'string') {
    if (CONNECTION_ERROR_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now)
    if (/^08...$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
  }
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
      message,
    )
  );
}
