import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { join, posix, sep } from 'node:path';
import { chapterAudioKey, isMediaKey } from '../../src/modules/media/domain/media-key.js';
import { checkMediaUrl, signedMediaPath } from '../../src/modules/media/domain/signed-media-url.js';

const secret = randomBytes(32);

const segment = fc.stringMatching(/^[a-z0-9_-]{1,10}(\.[a-z0-9_-]{1,4}){0,2}$/);
const mediaKey = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
/** Unix seconds from 2001 to 2286: ten digits, as issued. */
const expiry = fc.integer({ min: 1_000_000_000, max: 9_999_999_999 });

/** The three signed parts of a path made by signedMediaPath. */
function partsOf(path: string) {
  const url = new URL(path, 'http://localhost');
  return {
    key: url.pathname.slice('/media/'.length),
    expires: url.searchParams.get('expires')!,
    signature: url.searchParams.get('signature')!,
  };
}
const check = (parts: { key: string; expires: string; signature: string }, nowMs: number, key = secret) =>
  checkMediaUrl(parts.key, { expires: parts.expires, signature: parts.signature }, key, nowMs);

describe('signed local media URLs', () => {
  it('verify until their expiry second, and are refused from it on', () => {
    fc.assert(
      fc.property(mediaKey, expiry, fc.integer({ min: 1, max: 10_000_000 }), (key, expires, beforeMs) => {
        const parts = partsOf(signedMediaPath(key, expires, secret));
        expect(parts.key).toBe(key);
        expect(check(parts, expires * 1000 - beforeMs)).toBe('valid');
        expect(check(parts, expires * 1000)).toBe('expired');
        expect(check(parts, expires * 1000 + beforeMs)).toBe('expired');
      }),
    );
  });

  it('fail verification after any change of one character in the key, the expiry or the signature', () => {
    fc.assert(
      fc.property(
        mediaKey,
        expiry,
        fc.constantFrom('key', 'expires', 'signature'),
        fc.nat(),
        fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
        fc.constantFrom('replace', 'insert', 'delete'),
        (key, expires, part, position, character, edit) => {
          const parts = partsOf(signedMediaPath(key, expires, secret));
          const text = parts[part];
          const at = position % text.length;
          const changed =
            edit === 'replace'
              ? text.slice(0, at) + character + text.slice(at + 1)
              : edit === 'insert'
                ? text.slice(0, at) + character + text.slice(at)
                : text.slice(0, at) + text.slice(at + 1);
          fc.pre(changed !== text);
          // Checked long before the expiry: the change alone must be what fails it.
          expect(check({ ...parts, [part]: changed }, 0)).toBe('forged');
        },
      ),
    );
  });

  it('fail verification under another server secret', () => {
    fc.assert(
      fc.property(mediaKey, expiry, (key, expires) => {
        expect(check(partsOf(signedMediaPath(key, expires, secret)), 0, randomBytes(32))).toBe('forged');
      }),
    );
  });

  it('refuse a missing, repeated or malformed expiry or signature', () => {
    const parts = partsOf(signedMediaPath('live/n/1.mp3', 2_000_000_000, secret));
    for (const proof of [
      {},
      { expires: parts.expires },
      { signature: parts.signature },
      { expires: [parts.expires, parts.expires], signature: parts.signature },
      { expires: parts.expires, signature: [parts.signature] },
      { expires: ` ${parts.expires}`, signature: parts.signature },
    ]) {
      expect(checkMediaUrl(parts.key, proof, secret, 0)).toBe('forged');
    }
  });
});

describe('media keys', () => {
  it('never leave the directory they are joined under', () => {
    fc.assert(
      // An alphabet rich in separators and dots, so that many candidates are accepted.
      fc.property(fc.string({ unit: fc.constantFrom('a', '0', '-', '_', '.', '/', '\\', '%'), maxLength: 20 }), (candidate) => {
        fc.pre(isMediaKey(candidate));
        expect(posix.normalize(candidate)).toBe(candidate);
        expect(join('/data/media', candidate).startsWith(`/data/media${sep}`)).toBe(true);
      }),
    );
    fc.assert(fc.property(mediaKey, (key) => expect(posix.normalize(key)).toBe(key)));
  });

  it.each(['', '..', 'a/../b', '../a', './a', 'a/./b', '/a', 'a/', 'a//b', 'A.mp3', 'a\\b', 'a b', '.hidden', 'a/..', 'a..b/c', 'x'.repeat(256)])(
    'refuses %j',
    (key) => expect(isMediaKey(key)).toBe(false),
  );

  it("names a chapter's narration by environment, novel, chapter and content", () => {
    expect(chapterAudioKey('sandbox', 'the-lighthouse', 12, '0123456789abcdef')).toBe('sandbox/the-lighthouse/12-0123456789abcdef.mp3');
    expect(() => chapterAudioKey('live', '../etc', 1, '0123456789abcdef')).toThrow(RangeError);
    expect(() => chapterAudioKey('live', 'novel', 0, '0123456789abcdef')).toThrow(RangeError);
    expect(() => chapterAudioKey('live', 'novel', 1, '../../secret')).toThrow(RangeError);
  });
});
