import fc from 'fast-check';
import { CLIENT_ID_PATTERN, readClientAuthentication } from '../../src/modules/identity/domain/client-authentication.js';
import { publishedKeysAt, signingKeyAt } from '../../src/modules/identity/domain/signing-key-schedule.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('readClientAuthentication', () => {
  it('reads Basic credentials and form-decodes both parts', () => {
    expect(readClientAuthentication(basic('partner%2D1', 'a%3Ab+c'), {})).toEqual({
      kind: 'credentials',
      credentials: { clientId: 'partner-1', clientSecret: 'a:b c' },
    });
  });

  const encode = (s: string) => new URLSearchParams({ v: s }).toString().slice(2);
  const clientId = fc.stringMatching(CLIENT_ID_PATTERN);

  it('round-trips any well-formed id and any secret encoded as RFC 6749 2.3.1 asks', () => {
    fc.assert(
      fc.property(clientId, fc.string({ minLength: 1 }), (id, secret) => {
        const result = readClientAuthentication(basic(encode(id), encode(secret)), {});
        expect(result).toEqual({ kind: 'credentials', credentials: { clientId: id, clientSecret: secret } });
      }),
    );
  });

  it('refuses, before any lookup, a client id no credential can have, in either form', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((id) => !CLIENT_ID_PATTERN.test(id)),
        (id) => {
          expect(readClientAuthentication(basic(encode(id), 'secret'), {}).kind).toBe('malformed');
          expect(readClientAuthentication(undefined, { client_id: id, client_secret: 'secret' }).kind).toBe('malformed');
        },
      ),
    );
    for (const id of ['a\u0000b', 'x'.repeat(65), 'live_abc def', 'ünicode'])
      expect(readClientAuthentication(undefined, { client_id: id, client_secret: 's' }).kind).toBe('malformed');
  });

  it('reads body credentials, and refuses both methods at once', () => {
    expect(readClientAuthentication(undefined, { client_id: 'a', client_secret: 'b' }).kind).toBe('credentials');
    expect(readClientAuthentication(basic('a', 'b'), { client_id: 'a', client_secret: 'b' }).kind).toBe('ambiguous');
    expect(readClientAuthentication(undefined, { client_id: ['a', 'b'], client_secret: 'b' }).kind).toBe('ambiguous');
  });

  it('treats body fields sent without a value as omitted (RFC 6749 3.1), as form tools send them next to Basic', () => {
    expect(readClientAuthentication(basic('a', 'b'), { client_id: '', client_secret: '' })).toEqual({
      kind: 'credentials',
      credentials: { clientId: 'a', clientSecret: 'b' },
    });
    expect(readClientAuthentication(undefined, { client_id: '', client_secret: '' }).kind).toBe('missing');
    expect(readClientAuthentication(basic('a', 'b'), { client_id: 'a', client_secret: '' }).kind).toBe('ambiguous');
  });

  it('tells missing from malformed', () => {
    expect(readClientAuthentication(undefined, {}).kind).toBe('missing');
    expect(readClientAuthentication('Basic %%%', {}).kind).toBe('malformed');
    expect(readClientAuthentication(`Basic ${Buffer.from('no-colon').toString('base64')}`, {}).kind).toBe('malformed');
    expect(readClientAuthentication(undefined, { client_id: 'a' }).kind).toBe('malformed');
  });
});

describe('signing key schedule', () => {
  const policy = { tokenLifetimeSeconds: 600, activationDelaySeconds: 600, keyRefreshSeconds: 30 };
  const at = (seconds: number) => new Date(seconds * 1000);
  const k1 = { kid: 'k1', signsFrom: at(0) };
  const k2 = { kid: 'k2', signsFrom: at(10_000) };

  it('signs with the latest active key only', () => {
    expect(signingKeyAt([k1, k2], at(9_999))?.kid).toBe('k1');
    expect(signingKeyAt([k1, k2], at(10_000))?.kid).toBe('k2');
  });

  it('signs with the first key on a replica whose clock runs behind its creator (no 500 on the first token)', () => {
    expect(signingKeyAt([k2], at(9_000))?.kid).toBe('k2');
    expect(signingKeyAt([k2, { kid: 'k3', signsFrom: at(20_000) }], at(9_000))?.kid).toBe('k2');
  });

  it('publishes the next key before it signs, and the previous one until its tokens and caches are gone', () => {
    expect(publishedKeysAt([k1, k2], at(9_000), policy).map((k) => k.kid)).toEqual(['k1', 'k2']);
    expect(publishedKeysAt([k1, k2], at(10_000 + 1_229), policy).map((k) => k.kid)).toEqual(['k1', 'k2']);
    expect(publishedKeysAt([k1, k2], at(10_000 + 1_230), policy).map((k) => k.kid)).toEqual(['k2']);
  });

  it('always publishes the key that signs, at any moment', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 120_000 }), (starts, now) => {
        const keys = starts.map((s, i) => ({ kid: `k${i}`, signsFrom: at(s) }));
        expect(publishedKeysAt(keys, at(now), policy)).toContain(signingKeyAt(keys, at(now)));
      }),
    );
  });
});
