import { writeFileSync } from 'node:fs';
import { startTestApp } from '../support/test-app.js';
test('dump', async () => {
  const t = await startTestApp();
  const doc = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  writeFileSync('/tmp/openapi.json', JSON.stringify(doc, null, 2));
  await t.close();
}, 120000);
