import type { ClientBase } from 'pg';

/** The longest a request's, a report's or a job's statement may run. */
const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * pg pool options for the service's connections (pg-pool awaits `onConnect` before lending a client). PostgreSQL itself cancels a statement past
 * the timeout (57014: 503, nothing written, the connection stays usable); the client gives
 * up a little later only when the server has gone silent (a lost host: 503 too).
 */
export const statementTimeouts = {
  onConnect: (client: ClientBase) => client.query(`SET statement_timeout = ${STATEMENT_TIMEOUT_MS}`),
  query_timeout: STATEMENT_TIMEOUT_MS + 5_000,
};
