import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { MediaService } from '../../src/modules/media/index.js';
import { MediaStorage } from '../../src/modules/media/domain/media.storage.js';
import { contentKey, mediaFixtures } from './media-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { TEST_STREAM_RECIPIENT } from '../fixtures/stream-recipient.js';

// s3rver 3.7.1 knows the access key id S3RVER. It checks a presigned URL's form and expiry
// but does not compute SigV4 signatures (its source says so), so the secret is not checked
// and tampering with a URL cannot be tested against it: only expiry is.
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'secret-that-must-never-appear-in-a-url';
const BUCKET = 'narration';

let s3: S3rver;
let endpoint: string;
let t: TestApp;
let media: MediaService;
let fixtures: ReturnType<typeof mediaFixtures>;

beforeAll(async () => {
  s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: mkdtempSync(join(tmpdir(), 'prl-s3rver-')),
    silent: true,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await s3.run();
  endpoint = `http://127.0.0.1:${port}`;
  t = await startTestApp({
    STORAGE: 's3',
    S3_ENDPOINT: endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    S3_FORCE_PATH_STYLE: 'true',
  });
  media = t.app.get(MediaService);
  fixtures = mediaFixtures();
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

describe('S3-compatible storage (against s3rver)', () => {
  it('uploads an import and serves its exact bytes at a presigned URL', async () => {
    const imported = await media.importChapterAudio('live', 'the-lighthouse', 2, fixtures.mp3);
    expect(imported).toMatchObject({ key: contentKey('live', 'the-lighthouse', 2, fixtures.mp3Bytes), bytes: fixtures.mp3Bytes.length, bitrateKbps: 32 });
    const { url, expiresIn } = await media.issueStreamUrl(imported.key, TEST_STREAM_RECIPIENT);
    expect(expiresIn).toBe(1200);

    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await response.arrayBuffer()).equals(fixtures.mp3Bytes)).toBe(true);

    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(fixtures.mp3Bytes.subarray(100, 200))).toBe(true);
  });

  it('presigns a GET of the configured lifetime, path-style, carrying no secret', async () => {
    const url = new URL((await media.issueStreamUrl('live/the-lighthouse/2.mp3', TEST_STREAM_RECIPIENT)).url);
    expect(url.origin).toBe(endpoint);
    expect(url.pathname).toBe(`/${BUCKET}/live/the-lighthouse/2.mp3`);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('1200');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^${ACCESS_KEY_ID}/\\d{8}/us-east-1/s3/aws4_request$`));
    expect(url.searchParams.has('x-amz-checksum-mode')).toBe(false);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.href).not.toContain(SECRET_ACCESS_KEY);
  });

  it('gets an expired presigned URL refused by the server', async () => {
    const storage = t.app.get(MediaStorage);
    const url = await storage.signedUrl('live/the-lighthouse/2.mp3', new Date(Date.now() - 10_000), 5);
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Request has expired');
  });

  it('uploads nothing for a file that is not mp3', async () => {
    await expect(media.importChapterAudio('live', 'the-lighthouse', 3, fixtures.wav)).rejects.toThrow(/is not an mp3 file/);
    const wavKey = contentKey('live', 'the-lighthouse', 3, readFileSync(fixtures.wav));
    expect((await fetch((await media.issueStreamUrl(wavKey, TEST_STREAM_RECIPIENT)).url)).status).toBe(404);
  });

  it('leaves the local media route unserved', async () => {
    expect((await t.inject({ method: 'GET', url: '/media/live/the-lighthouse/2.mp3?expires=1&signature=x' })).statusCode).toBe(404);
  });
});

describe('a store the service reaches by another name than players (S3_PUBLIC_ENDPOINT)', () => {
  it('signs stream URLs for the public origin, which serves the bytes the service uploaded by the internal one', async () => {
    const imported = await media.importChapterAudio('live', 'the-lighthouse', 3, fixtures.mp3);
    const publicOrigin = endpoint.replace('127.0.0.1', 'localhost');
    const behindAnotherName = await startTestApp(
      {
        STORAGE: 's3',
        S3_ENDPOINT: endpoint,
        S3_PUBLIC_ENDPOINT: publicOrigin,
        S3_BUCKET: BUCKET,
        S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
        S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
      },
      t.databaseUrl,
    );
    try {
      const { url } = await behindAnotherName.app.get(MediaService).issueStreamUrl(imported.key, TEST_STREAM_RECIPIENT);
      expect(new URL(url).origin).toBe(publicOrigin);
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(fixtures.mp3Bytes)).toBe(true);
    } finally {
      await behindAnotherName.close();
    }
  });
});
