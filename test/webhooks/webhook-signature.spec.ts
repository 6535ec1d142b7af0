import { Webhook } from 'standardwebhooks';
import { newEndpointSecret, signatureHeader } from '../../src/modules/webhooks/domain/webhook-signature.js';

describe('webhook signatures', () => {
  const id = '9a0c6a5e-1d0b-4a47-8f59-3f2f1c3c7a11';
  const body = '{"event": "novel.finished", "event_id": "9a0c6a5e-1d0b-4a47-8f59-3f2f1c3c7a11"}';

  it('creates Standard Webhooks secrets with a 256-bit key', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newEndpointSecret()).not.toBe(secret);
  });

  it('signs so that the reference library verifies', () => {
    const secret = newEndpointSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader([secret], id, timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newEndpointSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('finished', 'started'), headers)).toThrow();
  });

  it('signs with every secret during a rotation, one space-separated signature each', () => {
    const [current, previous] = [newEndpointSecret(), newEndpointSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signatureHeader([current, previous], id, timestamp, body);
    expect(signature.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });
});
