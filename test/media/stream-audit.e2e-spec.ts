import { DataSource } from 'typeorm';
import { MediaService, type StreamRecipient } from '../../src/modules/media/index.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let media: MediaService;
let db: DataSource;

beforeAll(async () => {
  media = t.app.get(MediaService);
  db = t.app.get(DataSource);
});

const rowsOf = (partnerId: string) =>
  db.query(
    `SELECT environment, client_id, subscriber_id, novel_id, chapter_number, issued_at, expires_at
       FROM stream_url_issues WHERE partner_id = $1 ORDER BY id`,
    [partnerId],
  );

/** What the stream endpoint records after issuing a URL. */
async function issueFor(partner: { partner_id: string; client_id: string }, environment: 'live' | 'sandbox', subscriberId: string, chapterNumber: number) {
  const recipient = { partnerId: partner.partner_id, environment, clientId: partner.client_id, subscriberId, novelId: 'the-lighthouse', chapterNumber };
  const issued = await media.issueStreamUrl(`${environment}/the-lighthouse/${chapterNumber}.mp3`, recipient);
  return { ...recipient, issuedAt: issued.issuedAt, expiresAt: issued.expiresAt };
}

describe('stream URL audit log', () => {
  it('holds one row per issued URL, under the partner that asked for it', async () => {
    const [a, b] = [await t.partner(), await t.partner({ environment: 'sandbox' })];
    const issuedToA = [await issueFor(a, 'live', 'sub-1', 1), await issueFor(a, 'live', 'sub-1', 1), await issueFor(a, 'live', 'sub-2', 2)];
    const issuedToB = [await issueFor(b, 'sandbox', 'sub-1', 1)];

    const row = (entry: StreamRecipient & { issuedAt: Date; expiresAt: Date }) => ({
      environment: entry.environment,
      client_id: entry.clientId,
      subscriber_id: entry.subscriberId,
      novel_id: entry.novelId,
      chapter_number: entry.chapterNumber,
      issued_at: entry.issuedAt,
      expires_at: entry.expiresAt,
    });
    expect(await rowsOf(a.partner_id)).toEqual(issuedToA.map(row));
    expect(await rowsOf(b.partner_id)).toEqual(issuedToB.map(row));
    expect(issuedToA[0].expiresAt.getTime() - issuedToA[0].issuedAt.getTime()).toBe(1_200_000);
  });

  it("is written in the caller's transaction, so a failed stream request leaves no row", async () => {
    const partner = await t.partner();
    const attempt = t.app.get(UnitOfWork).run(async () => {
      await issueFor(partner, 'live', 'sub-1', 1);
      throw new Error('the stream request failed after recording');
    });
    await expect(attempt).rejects.toThrow('failed after recording');
    expect(await rowsOf(partner.partner_id)).toEqual([]);
  });
});
