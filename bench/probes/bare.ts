// What the three limit probes share: a Fastify with no logger, no hooks and no validation
// library (the least any HTTP service on this machine does), `/health/live` for the bench's
// start check, and a clean stop. Env: PORT, and DATABASE_URL for the database probes.
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';

export function bareFastify(): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/health/live', async () => ({ status: 'ok' }));
  return app;
}

/** The service's pool size (src/database/data-source-options.ts), so that the database sees the same concurrency. */
export function probePool(): pg.Pool {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('probe: DATABASE_URL is required');
  return new pg.Pool({ connectionString: url, max: 20 });
}

export { PROBE_ROWS, PROBE_SCHEMA } from './answers.js';

export async function listen(app: FastifyInstance, pool?: pg.Pool): Promise<void> {
  await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      await app.close();
      await pool?.end();
      process.exit(0);
    });
  }
}
