import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summariseProfile } from '../../bench/load/profile.js';

/** `--profile` counts a server's samples over the measured load only (monotonic windows, the clock of V8's profiles). */
test('samples outside the windows are left out of the self-time summary', () => {
  const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
  const profile = {
    nodes: [frame(1, 'startUp', 'file:///x/node_modules/@nestjs/core/a.js'), frame(2, 'serve', 'file:///x/node_modules/fastify/b.js')],
    startTime: 1_000_000,
    endTime: 1_004_000,
    // One sample a millisecond: four of startUp, then four of serve.
    samples: [1, 1, 1, 1, 2, 2, 2, 2],
    timeDeltas: [500, 500, 500, 500, 500, 500, 500, 500],
  };
  const file = join(mkdtempSync(join(tmpdir(), 'prl-profile-')), 'p.cpuprofile');
  writeFileSync(file, JSON.stringify(profile));

  expect(summariseProfile(file).byArea.map((a) => [a.area, a.percent])).toEqual([
    ['@nestjs/core', 50],
    ['fastify', 50],
  ]);
  const loaded = summariseProfile(file, 30, 0, [[1_002_100, 1_004_000]]);
  expect(loaded.byArea.map((a) => [a.area, a.percent])).toEqual([['fastify', 100]]);
  expect(loaded.topFunctions.map((f) => f.name)).toEqual(['serve']);
});
