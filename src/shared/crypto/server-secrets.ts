import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';

/**
 * Keys derived from the one SERVER_SECRET, each for one purpose, so that a leak of one
 * derived key reveals nothing of the others.
 */
@Injectable()
export class ServerSecrets {
  private readonly pepper: Buffer;
  private readonly sealingKey: Buffer;
  readonly mediaUrlKey: Buffer;

  constructor(@Inject(AppConfig) config: AppConfig) {
    this.pepper = derive(config.serverSecret, 'credential-secret-pepper');
    this.sealingKey = derive(config.serverSecret, 'private-key-sealing');
    this.mediaUrlKey = derive(config.serverSecret, 'media-url-signing');
  }

  /** Keyed hash of a high-entropy secret (DECISIONS 2); not a slow password hash on purpose. */
  hashSecret(secret: string): Buffer {
    return createHmac('sha256', this.pepper).update(secret, 'utf8').digest();
  }

  secretMatches(secret: string, storedHash: Buffer): boolean {
    const hash = this.hashSecret(secret);
    return hash.length === storedHash.length && timingSafeEqual(hash, storedHash);
  }

  /** Encrypts material stored in the database (AES-256-GCM). */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealingKey, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  unseal(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.sealingKey, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
}
