// Framework probes: the service's own bootstrap (createApp: the same Nest application, global
// guard, validation, interceptors, filters, metrics and logger, one process) with the probe
// routes of framework-module.ts. What the framework alone leaves of the bare probes: an
// endpoint's fraction of these is the part of its cost that is its own. Env: the service's
// (DATABASE_URL, SERVER_SECRET, PUBLIC_BASE_URL, …) and PORT.
import '../../src/bootstrap/v8-heap.js';
import 'reflect-metadata';
import { createApp } from '../../src/bootstrap/create-app.js';
import { loadConfig } from '../../src/config/app-config.js';
import { FrameworkProbeModule } from './framework-module.js';

const config = loadConfig();
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('framework probe: DATABASE_URL is required');
const app = await createApp(config, databaseUrl, undefined, [FrameworkProbeModule]);
await app.listen({ port: config.port, host: config.host });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await app.close();
    process.exit(0);
  });
}
