/** The SQLSTATE of a driver error, or of the one TypeORM wraps. */
function sqlState(error: unknown): string | undefined {
  const e = error as { code?: string; driverError?: { code?: string } } | undefined;
  return e?.code ?? e?.driverError?.code;
}

/**
 * True when PostgreSQL aborted the transaction to break a deadlock (40P01) or a
 * serialisation conflict (40001): nothing was written, and the same request again succeeds.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = sqlState(error);
  return code === '40P01' || code === '40001';
}

/** True when a write named a row that does not exist through a foreign key (23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  return sqlState(error) === '23503';
}

/** True when PostgreSQL cancelled a statement that ran past its timeout (57014): nothing was written. */
export function isStatementTimeout(error: unknown): boolean {
  return sqlState(error) === '57014';
}

/**
 * True for failures that mean "the database cannot be reached right now" rather than a
 * bug: refused or dropped connections, a server shutting down or starting up, a pool
 * that cannot hand out a connection in time.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string; driverError?: unknown } | undefined;
  if (!e) return false;
  // TypeORM releases a transaction's connection when the connection breaks; the next
  // statement of that transaction then fails this way.
  if (e.name === 'QueryRunnerAlreadyReleasedError') return true;
  if (e.driverError && e.driverError !== error && isDatabaseUnavailable(e.driverError)) return true;
  const code = e.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now).
  if (/^08/.test(code) || /^57P0[1-3]$/.test(code)) return true;
  // "Query read timeout": the server went silent past the statement timeout (a lost host).
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Query read timeout/i.test(
    e.message ?? '',
  );
}
