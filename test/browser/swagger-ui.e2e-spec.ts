import serverlessChromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Swagger UI in a real headless browser driven by playwright-core: an operator authorizes
 * with a sandbox client id and secret (Swagger UI gets the token through the document's
 * client-credentials scheme) and runs "Try it out" on the sandbox catalog. The browser is the
 * Chromium shipped inside the @sparticuz/chromium package (nothing to install); set
 * CHROMIUM_PATH to use another one.
 */
async function launchBrowser(): Promise<Browser> {
  if (process.env.CHROMIUM_PATH) {
    const args = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ];
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

test('an operator authorizes in Swagger UI with a client id and secret, and "Try it out" on GET /sandbox/v1/novels answers 200', async () => {
  const credential = await t.partner({ environment: 'sandbox', scopes: ['textapp:catalog:read'] });
  const page = await browser.newPage();
  const tokenRequests: { authorization?: string; body: string | null }[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/platform/v1/oauth2/token')) tokenRequests.push({ authorization: request.headers().authorization, body: request.postData() });
  });
  await page.goto(`${origin}/docs`);
  await page
    .getByRole('button', { name: /Authorize/ })
    .first()
    .click();

  // The client-credentials flow of the platform issuer: Swagger UI fetches the token.
  const platform = page.locator('.modal-ux .auth-container', { hasText: 'platform (OAuth2, clientCredentials)' });
  await platform.locator('input[data-name="clientId"]').fill(credential.client_id);
  await platform.locator('input[data-name="clientSecret"]').fill(credential.client_secret);
  await platform.locator('label', { hasText: 'textapp:catalog:read' }).click();
  await platform.locator('button.authorize').click();
  // The scheme shows "Authorized" once the token arrived.
  await platform.locator('h6', { hasText: 'Authorized' }).waitFor();
  await platform.locator('button.btn-done').click();
  // Basic authentication, as the document says, and no secret in the form.
  expect(tokenRequests).toHaveLength(1);
  expect(tokenRequests[0].authorization).toBe(`Basic ${Buffer.from(`${credential.client_id}:${credential.client_secret}`).toString('base64')}`);
  expect(tokenRequests[0].body).not.toContain('client_secret');

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

test('"Try it out" on the token endpoint pre-fills no placeholder and, authorized with HTTP Basic, answers 200', async () => {
  const credential = await t.partner({ environment: 'sandbox', scopes: ['textapp:catalog:read'] });
  const page = await browser.newPage();
  await page.goto(`${origin}/docs`);
  await page
    .getByRole('button', { name: /Authorize/ })
    .first()
    .click();
  const basic = page.locator('.modal-ux .auth-container', { hasText: 'clientBasic' });
  await basic.locator('input[type="text"]').fill(credential.client_id);
  await basic.locator('input[type="password"]').fill(credential.client_secret);
  await basic.locator('button.authorize').click();
  await basic.locator('h6', { hasText: 'Authorized' }).waitFor();
  await basic.locator('button.btn-done').click();

  const operation = page.locator('.opblock-post', { has: page.locator('[data-path="/platform/v1/oauth2/token"]') });
  await operation.locator('.opblock-summary').first().click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  const form = operation.locator('.opblock-section-request-body');
  await form.locator('input, select').first().waitFor();
  const values = await form
    .locator('input[type="text"], input:not([type]), textarea')
    .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
  expect(values).not.toContain('string');

  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
  await status.waitFor();
  expect((await status.innerText()).trim()).toBe('200');
}, 60_000);
