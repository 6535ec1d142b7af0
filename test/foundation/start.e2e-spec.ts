import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOnce, runNode } from '../support/processes.js';
import { freePort } from '../../src/shared/net/free-port.js';

/**
 * `npm start` with nothing configured: the built service starts its own embedded
 * PostgreSQL under DATA_DIR/pg, serves, prints where the docs are, and stops cleanly.
 */
describe('starting the service with nothing configured', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'prl-start-'));
  // Run as root, PostgreSQL runs as the `postgres` user, which must be able to enter DATA_DIR.
  chmodSync(dataDir, 0o755);
  beforeAll(() => buildOnce());
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('comes up on the embedded database, then stops it on SIGTERM; the next start reuses it', async () => {
    for (let run = 0; run < 2; run++) {
      const port = await freePort();
      const service = runNode('dist/src/main.js', [], { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      await service.waitForOutput(/Swagger UI/, 60_000);
      expect(service.output()).toContain(`http://localhost:${port}/docs`);
      expect(service.output()).toContain('npm run cli -- partner:create');
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(ready.status).toBe(200);
      expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
      service.child.kill('SIGTERM');
      expect(await service.exit()).toBe(0);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    }
  });

  it('refuses a bad configuration value with one line naming the variable', async () => {
    const service = runNode('dist/src/main.js', [], { PORT: 'eighty', DATA_DIR: dataDir });
    expect(await service.exit()).toBe(1);
    expect(service.output().trim().split('\n')).toEqual([expect.stringContaining('PORT')]);
  });
});
