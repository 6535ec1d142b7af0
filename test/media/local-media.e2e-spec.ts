import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AudioImportError, MediaService } from '../../src/modules/media/index.js';
import { contentKey, mediaFixtures } from './media-fixtures.js';
import { TEST_BASE_URL, useTestApp } from '../support/test-app.js';
import { TEST_STREAM_RECIPIENT } from '../fixtures/stream-recipient.js';

const t = useTestApp();
let media: MediaService;
let fixtures: ReturnType<typeof mediaFixtures>;
let file: Buffer;
/** The stream_url of the fixture, issued once for most tests. */
let streamUrl: string;

beforeAll(async () => {
  media = t.app.get(MediaService);
  fixtures = mediaFixtures();
  file = fixtures.mp3Bytes;
  const imported = await media.importChapterAudio('sandbox', 'the-lighthouse', 3, fixtures.mp3);
  streamUrl = (await media.issueStreamUrl(imported.key, TEST_STREAM_RECIPIENT)).url;
});
afterEach(() => jest.restoreAllMocks());

/** The stream_url as a path for inject: the service answers it whatever origin it was given. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};
const fetchMedia = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => t.inject({ method, url: pathOf(url), headers });

describe('importChapterAudio', () => {
  it('stores the mp3 under a key named by its content, with the duration and bitrate read from the audio', async () => {
    const imported = await media.importChapterAudio('live', 'the-lighthouse', 1, fixtures.mp3);
    expect(imported).toEqual({ key: contentKey('live', 'the-lighthouse', 1, file), bytes: file.length, durationSeconds: expect.any(Number), bitrateKbps: 32 });
    // The fixture is 6 to 12 whole seconds of audio; the encoder adds a few milliseconds.
    expect(imported.durationSeconds).toBeGreaterThanOrEqual(6);
    expect(imported.durationSeconds).toBeLessThanOrEqual(12);
  });

  it('stores other audio for the chapter beside the old file, so a URL already issued keeps its bytes', async () => {
    const first = await media.importChapterAudio('live', 'the-lighthouse', 2, fixtures.mp3);
    const issued = await media.issueStreamUrl(first.key, TEST_STREAM_RECIPIENT);
    const other = await media.importChapterAudio('live', 'the-lighthouse', 2, fixtures.otherMp3);
    expect(other.key).not.toBe(first.key);
    expect((await fetchMedia(issued.url)).rawPayload.equals(file)).toBe(true);
    expect((await fetchMedia((await media.issueStreamUrl(other.key, TEST_STREAM_RECIPIENT)).url)).rawPayload.equals(fixtures.otherMp3Bytes)).toBe(true);
    // The same file again lands on the same key.
    expect((await media.importChapterAudio('live', 'the-lighthouse', 2, fixtures.mp3)).key).toBe(first.key);
  });

  it.each([
    ['a text file named .mp3', () => fixtures.text, /notes\.mp3" is not an mp3 file/],
    ['a WAV file', () => fixtures.wav, /narration\.wav" is not an mp3 file \(found: WAVE/],
    ['a missing file', () => `${fixtures.mp3}.missing`, /Cannot read ".*narration\.mp3\.missing": ENOENT/],
  ])('rejects %s with an error naming the file, and stores nothing', async (_, source, message) => {
    const attempt = media.importChapterAudio('live', 'rejected-novel', 1, source());
    await expect(attempt).rejects.toThrow(AudioImportError);
    await expect(attempt).rejects.toThrow(message);
    expect(existsSync(join(t.config.dataDir, 'media', 'live', 'rejected-novel'))).toBe(false);
  });
});

describe('issueStreamUrl with local storage', () => {
  it('gives a signed URL on PUBLIC_BASE_URL that expires after STREAM_URL_TTL_SECONDS', async () => {
    const issued = await media.issueStreamUrl('sandbox/the-lighthouse/3.mp3', TEST_STREAM_RECIPIENT);
    expect(issued.expiresIn).toBe(1200);
    expect(issued.expiresAt.getTime() - issued.issuedAt.getTime()).toBe(1_200_000);
    const url = new URL(issued.url);
    expect(url.origin).toBe(TEST_BASE_URL);
    expect(url.pathname).toBe('/media/sandbox/the-lighthouse/3.mp3');
    expect([...url.searchParams.keys()]).toEqual(['expires', 'signature']);
    expect(Number(url.searchParams.get('expires'))).toBe(issued.expiresAt.getTime() / 1000);
  });
});

describe('GET /media/{key} (local storage)', () => {
  it('returns the exact bytes of the file, as audio/mpeg, cacheable only while the URL lives', async () => {
    const response = await fetchMedia(streamUrl);
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(file)).toBe(true);
    expect(response.headers).toMatchObject({
      'content-type': 'audio/mpeg',
      'content-length': String(file.length),
      'accept-ranges': 'bytes',
    });
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(response.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThan(1190);
    expect(maxAge).toBeLessThanOrEqual(1200);
  });

  it('streams the same bytes over a real socket', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${pathOf(streamUrl)}`, { headers: { range: 'bytes=1000-' } });
    expect(response.status).toBe(206);
    expect(Buffer.from(await response.arrayBuffer()).equals(file.subarray(1000))).toBe(true);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, undefined],
    ['bytes=-500', -500, undefined],
    ['bytes=200-999999999', 200, undefined],
  ])('answers Range %s with 206 and that slice', async (range, from, to) => {
    const response = await fetchMedia(streamUrl, { range });
    const start = from < 0 ? file.length + from : from;
    const end = to ?? file.length - 1;
    expect(response.statusCode).toBe(206);
    expect(response.rawPayload.equals(file.subarray(start, end + 1))).toBe(true);
    expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${file.length}`);
    expect(response.headers['content-length']).toBe(String(end - start + 1));
    expect(response.headers['content-type']).toBe('audio/mpeg');
  });

  it('answers an unsatisfiable range with 416, the file size and the contract error body', async () => {
    const response = await fetchMedia(streamUrl, { range: `bytes=${file.length}-` });
    expect(response.statusCode).toBe(416);
    expect(response.headers['content-range']).toBe(`bytes */${file.length}`);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(`${file.length} bytes`) });
  });

  it('ignores a malformed or multiple range and sends the whole file', async () => {
    for (const range of ['bytes=5-1', 'lines=1-2', 'bytes=0-1,5-6']) {
      const response = await fetchMedia(streamUrl, { range });
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.equals(file)).toBe(true);
    }
  });

  it('honours If-Range only when it names the current file', async () => {
    const current = String((await fetchMedia(streamUrl, {}, 'HEAD')).headers['last-modified']);
    expect((await fetchMedia(streamUrl, { range: 'bytes=0-9', 'if-range': current })).statusCode).toBe(206);
    const stale = await fetchMedia(streamUrl, { range: 'bytes=0-9', 'if-range': 'Thu, 01 Jan 2026 00:00:00 GMT' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(file.length);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const whole = await fetchMedia(streamUrl, {}, 'HEAD');
    expect(whole.statusCode).toBe(200);
    expect(whole.headers).toMatchObject({ 'content-type': 'audio/mpeg', 'content-length': String(file.length), 'accept-ranges': 'bytes' });
    expect(whole.rawPayload.length).toBe(0);
    const part = await fetchMedia(streamUrl, { range: 'bytes=10-19' }, 'HEAD');
    expect(part.statusCode).toBe(206);
    expect(part.headers).toMatchObject({ 'content-range': `bytes 10-19/${file.length}`, 'content-length': '10' });
    expect(part.rawPayload.length).toBe(0);
  });

  it('works until the last second of its life and gives 403 one second past expiry', async () => {
    const expires = Number(new URL(streamUrl).searchParams.get('expires'));
    jest.spyOn(Date, 'now').mockReturnValue(expires * 1000 - 1);
    expect((await fetchMedia(streamUrl)).statusCode).toBe(200);
    jest.spyOn(Date, 'now').mockReturnValue((expires + 1) * 1000);
    const response = await fetchMedia(streamUrl);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'access_denied', error_description: expect.stringMatching(/expired/) });
  });

  describe('a URL with one changed character gives 403', () => {
    const changeOne = (text: string, at: number) => {
      const replacement = text[at] === 'a' ? 'b' : text[at] === '0' ? '1' : /[0-9]/.test(text[at]) ? '0' : 'a';
      return text.slice(0, at) + replacement + text.slice(at + 1);
    };

    it.each(['key', 'expires', 'signature'] as const)('in the %s', async (part) => {
      const url = new URL(streamUrl);
      const key = url.pathname.slice('/media/'.length);
      const expires = url.searchParams.get('expires')!;
      const signature = url.searchParams.get('signature')!;
      for (const at of [0, Math.floor({ key, expires, signature }[part].length / 2), { key, expires, signature }[part].length - 1]) {
        const parts = { key, expires, signature, [part]: changeOne({ key, expires, signature }[part], at) };
        const response = await t.inject({ method: 'GET', url: `/media/${parts.key}?expires=${parts.expires}&signature=${parts.signature}` });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({ error: 'access_denied', error_description: expect.any(String) });
      }
    });
  });

  it('gives 403 without the signature, and to encoded keys that try to leave the media directory', async () => {
    const { pathname, search } = new URL(streamUrl);
    for (const path of [pathname, `/media/sandbox/..%2F..%2F..%2Fserver-secret${search}`, `/media/%2Fetc%2Fpasswd${search}`]) {
      expect((await t.inject({ method: 'GET', url: path })).statusCode).toBe(403);
    }
    // A plain or %2e-encoded ".." segment is resolved by URL parsing before routing.
    const dotted = await t.inject({ method: 'GET', url: `/media/sandbox/the-lighthouse/../../../server-secret${search}` });
    expect(dotted.statusCode).toBe(404);
  });

  it('needs no access token, and ignores one', async () => {
    const response = await fetchMedia(streamUrl, { authorization: 'Bearer not-a-token' });
    expect(response.statusCode).toBe(200);
  });
});
