import { demoDurationSeconds, DEMO_AUDIO_FORMAT } from '../../src/modules/media/demo/demo-narration.js';
import { importCatalog, manifest } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';
import { demoMp3, narratedNovel } from './audio-fixtures.js';

const t = useTestApp();
let a: PartnerClient;

beforeAll(async () => {
  await importCatalog(
    t,
    manifest([
      narratedNovel('mixed', [{ file: demoMp3('the-heir', 1) }, undefined, { status: 'rendering' }, { file: demoMp3('the-heir', 4), status: 'failed' }]),
      narratedNovel('gone', [{ file: demoMp3('the-heir', 1) }], { status: 'removed' }),
    ]),
  );
  a = await partnerClient(t, { scopes: ['audioapp:audio:read'] });
});

function expectError(response: Awaited<ReturnType<PartnerClient['call']>>, status: number, error: string) {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: expect.any(String) } });
}

const narrated = (chapterNumber: number, fileOf: number, audioStatus: string) => ({
  chapter_number: chapterNumber,
  audio_status: audioStatus,
  format: 'mp3',
  duration_seconds: demoDurationSeconds({ novelId: 'the-heir', chapterNumber: fileOf }),
  bitrate_kbps: DEMO_AUDIO_FORMAT.bitrateKbps,
  voice_id: null,
});
const withoutFile = (chapterNumber: number, audioStatus: string) => ({
  chapter_number: chapterNumber,
  audio_status: audioStatus,
  format: null,
  duration_seconds: null,
  bitrate_kbps: null,
  voice_id: null,
});
const CHAPTERS = [narrated(1, 1, 'ready'), withoutFile(2, 'pending'), withoutFile(3, 'rendering'), narrated(4, 4, 'failed')];

describe('GET /novels/{id}/audio', () => {
  it("lists every chapter's audio_status, format, duration and bitrate read from its file, and voice_id null", async () => {
    const response = await a.call('GET', '/novels/mixed/audio');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ novel_id: 'mixed', chapters: CHAPTERS });
  });

  it('covers the demo catalog on the sandbox, every chapter ready', async () => {
    const sandbox = await partnerClient(t, { partnerId: a.partnerId, environment: 'sandbox', scopes: ['audioapp:audio:read'] });
    const { chapters } = (await sandbox.call('GET', '/novels/the-lighthouse-ledger/audio')).json();
    expect(chapters).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({
        ...narrated(n, n, 'ready'),
        duration_seconds: demoDurationSeconds({ novelId: 'the-lighthouse-ledger', chapterNumber: n }),
      })),
    );
  });

  it('answers 404 invalid_request for an unknown or removed novel, and 400 to any query parameter', async () => {
    expectError(await a.call('GET', '/novels/no-such-novel/audio'), 404, 'invalid_request');
    expectError(await a.call('GET', '/novels/gone/audio'), 404, 'invalid_request');
    expectError(await a.call('GET', '/novels/mixed/audio?subscriber_id=s'), 400, 'invalid_request');
    expectError(await a.call('GET', '/novels/Not_A_Slug/audio'), 400, 'invalid_request');
  });
});

describe('GET /novels/{id}/chapters/{n}/audio', () => {
  it.each(CHAPTERS.map((chapter) => [chapter.chapter_number, chapter] as const))('answers chapter %i alone, in the same shape', async (n, expected) => {
    const response = await a.call('GET', `/novels/mixed/chapters/${n}/audio`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(expected);
  });

  it('answers 404 invalid_request for an unknown or removed novel, 404 not_found beyond the novel, 400 for a bad chapter number', async () => {
    expectError(await a.call('GET', '/novels/no-such-novel/chapters/1/audio'), 404, 'invalid_request');
    expectError(await a.call('GET', '/novels/gone/chapters/1/audio'), 404, 'invalid_request');
    // A malformed chapter number is refused before anything is looked up.
    expectError(await a.call('GET', '/novels/gone/chapters/0/audio'), 400, 'invalid_request');
    expectError(await a.call('GET', '/novels/mixed/chapters/5/audio'), 404, 'not_found');
    expectError(await a.call('GET', '/novels/mixed/chapters/0/audio'), 400, 'invalid_request');
    expectError(await a.call('GET', '/novels/mixed/chapters/one/audio'), 400, 'invalid_request');
    expectError(await a.call('GET', '/novels/mixed/chapters/1/audio?voice_id=x'), 400, 'invalid_request');
  });
});

describe('access to the audio metadata', () => {
  it.each(['/novels/mixed/audio', '/novels/mixed/chapters/1/audio'])('%s needs audioapp:audio:read', async (path) => {
    const other = await partnerClient(t, { partnerId: a.partnerId, scopes: ['textapp:catalog:read', 'audioapp:playback:read', 'audioapp:voices:read'] });
    expectError(await other.call('GET', path), 403, 'insufficient_scope');
    expect((await t.inject({ method: 'GET', url: `/v1${path}` })).statusCode).toBe(401);
  });

  it('documents the routes under the Audio tag, the metadata as extensions, with their scope', async () => {
    const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const operation = (path: string) => document.paths[path].get;
    for (const mount of ['/v1', '/sandbox/v1']) {
      const stream = operation(`${mount}/novels/{id}/chapters/{chapterNumber}/stream`);
      expect(stream.tags).toEqual(['Audio']);
      expect(stream['x-extension']).toBeUndefined();
      expect(Object.keys(stream.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '503']);
      for (const path of [`${mount}/novels/{id}/audio`, `${mount}/novels/{id}/chapters/{chapterNumber}/audio`]) {
        expect(operation(path).tags).toEqual(expect.arrayContaining(['Audio', 'Extensions']));
        expect(operation(path)['x-extension']).toBe(true);
      }
      for (const op of [stream, operation(`${mount}/novels/{id}/audio`), operation(`${mount}/novels/{id}/chapters/{chapterNumber}/audio`)]) {
        expect(op['x-required-scopes']).toEqual({ anyOf: ['audioapp:audio:read'] });
      }
    }
    expect(Object.keys(document.components.schemas.StreamResponseDto.properties)).toEqual(['stream_url', 'expires_in', 'format', 'duration_seconds']);
  });
});
