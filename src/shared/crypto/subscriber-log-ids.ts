import { createHmac } from 'node:crypto';
import type { Environment } from '../tenancy/tenant.js';
import { derive } from './server-secrets.js';

/**
 * How logs name a subscriber (DECISIONS 29, ADR 0141): `sub_` and 16 hex characters of an
 * HMAC-SHA-256 under a key derived from SERVER_SECRET for this purpose alone. The partner
 * and the environment are part of what is hashed, so the same id at two partners, or live
 * and sandbox, reads as two subscribers, as the service treats them; and without the key
 * no one can test a guessed id against a log line.
 */
export class SubscriberLogIds {
  private readonly key: Buffer;

  constructor(serverSecret: Buffer) {
    this.key = derive(serverSecret, 'subscriber-log-id');
  }

  of(partnerId: string, environment: Environment, subscriberId: string): string {
    // JSON keeps the three parts apart whatever characters they hold.
    const input = JSON.stringify([partnerId, environment, subscriberId]);
    return `sub_${createHmac('sha256', this.key).update(input, 'utf8').digest('hex').slice(0, 16)}`;
  }
}
