import serverlessChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Swagger UI in a real headless browser driven by playwright-core: an operator authorizes
 * with a sandbox token and runs "Try it out" on the sandbox catalog. The browser is the
 * Chromium shipped inside the @sparticuz/chromium package (nothing to install); set
 * CHROMIUM_PATH to use another one.
 */
async function launchBrowser(): Promise<Browser> {
  if (process.env.CHROMIUM_PATH) {
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
    return chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args });
  }
  return chromium.launch({ executablePath: await serverlessChromium.executablePath(), args: serverlessChromium.args });
}

let t: TestApp;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test('an operator authorizes in Swagger UI and gets a 200 with data from GET /sandbox/v1/novels', async () => {
  const credential = await t.partner({ environment: 'sandbox', scopes: ['textapp:catalog:read'] });
  const token = await t.token(credential);
  const page = await browser.newPage();
  await page.goto(`${origin}/docs`);
  await page.getByRole('button', { name: /Authorize/ }).first().click();
  await page.locator('.modal-ux input[type="text"], .modal-ux input[type="password"]').first().fill(token);
  await page.locator('.modal-ux button.authorize').click();
  await page.locator('.modal-ux button.btn-done').click();

  const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/sandbox/v1/novels"]') });
  await operation.locator('.opblock-summary').first().click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  await operation.getByRole('button', { name: 'Execute' }).click();

  const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
  await status.waitFor();
  expect((await status.innerText()).trim()).toBe('200');
  const body = JSON.parse(await operation.locator('.live-responses-table .microlight').first().innerText());
  expect(body.total).toBeGreaterThan(0);
  expect(body.data.length).toBeGreaterThan(0);
}, 60_000);
