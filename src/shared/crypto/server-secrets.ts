import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/app-config.js';

/** The keys one root secret yields, each for one purpose, so that a leak of one reveals nothing of the others. */
interface DerivedKeys {
  pepper: Buffer;
  sealingKey: Buffer;
  mediaUrlKey: Buffer;
  /** Names the root secret without revealing it: what the database records (ADR 0003). */
  fingerprint: string;
}

/** Which of the configured root secrets a stored value was made with. */
export type SecretMatch = 'writing' | 'other';

/**
 * Keys derived from SERVER_SECRET and, during a rotation, SERVER_SECRET_PREVIOUS (ADR 0003).
 * New material is sealed, hashed and signed with the *writing* secret: the one the database
 * records, which is the previous one until `secret:rotate` moves the database to the new
 * one. Stored material is read with either, so replicas that know both never fail to read
 * what another wrote, whichever secret it wrote with.
 */
@Injectable()
export class ServerSecrets {
  private readonly current: DerivedKeys;
  private readonly previous?: DerivedKeys;
  private writing: DerivedKeys;

  constructor(@Inject(AppConfig) config: AppConfig) {
    this.current = deriveKeys(config.serverSecret);
    this.previous = config.serverSecretPrevious ? deriveKeys(config.serverSecretPrevious) : undefined;
    this.writing = this.current;
  }

  /** The fingerprints of SERVER_SECRET and of SERVER_SECRET_PREVIOUS, when set. */
  get fingerprints(): { current: string; previous?: string } {
    return { current: this.current.fingerprint, previous: this.previous?.fingerprint };
  }

  get writingFingerprint(): string {
    return this.writing.fingerprint;
  }

  /** Writes with the secret of `fingerprint` from now on; false when it is neither configured secret. */
  writeWith(fingerprint: string): boolean {
    const keys = [this.current, this.previous].find((candidate) => candidate?.fingerprint === fingerprint);
    if (keys) this.writing = keys;
    return keys !== undefined;
  }

  /** Keyed hash of a high-entropy secret (DECISIONS 2); not a slow password hash on purpose. */
  hashSecret(secret: string): Buffer {
    return hmac(this.writing.pepper, secret);
  }

  /** Which secret's pepper `storedHash` was made with, if `secret` is the one it hashes. */
  secretMatch(secret: string, storedHash: Buffer): SecretMatch | null {
    if (sameBytes(hmac(this.writing.pepper, secret), storedHash)) return 'writing';
    const other = this.other();
    return other && sameBytes(hmac(other.pepper, secret), storedHash) ? 'other' : null;
  }

  secretMatches(secret: string, storedHash: Buffer): boolean {
    return this.secretMatch(secret, storedHash) !== null;
  }

  /** Encrypts material stored in the database (AES-256-GCM). */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.writing.sealingKey, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  /** Decrypts with the writing secret, else the other; throws when neither sealed it. */
  unseal(sealed: string): string {
    const other = this.other();
    try {
      return unsealWith(this.writing.sealingKey, sealed);
    } catch (error) {
      if (!other) throw error;
      return unsealWith(other.sealingKey, sealed);
    }
  }

  /** Whether `sealed` opens with the key of `fingerprint` (a configured secret). */
  sealedWith(sealed: string, fingerprint: string): boolean {
    const keys = [this.current, this.previous].find((candidate) => candidate?.fingerprint === fingerprint);
    try {
      return keys !== undefined && (unsealWith(keys.sealingKey, sealed), true);
    } catch {
      return false;
    }
  }

  /** Signs media URLs. */
  get mediaUrlKey(): Buffer {
    return this.writing.mediaUrlKey;
  }

  /** Verify media URLs: a URL signed a moment before a switch stays good for its lifetime. */
  get mediaUrlKeys(): Buffer[] {
    return [this.writing, this.other()].filter((keys): keys is DerivedKeys => keys !== undefined).map((keys) => keys.mediaUrlKey);
  }

  private other(): DerivedKeys | undefined {
    return this.writing === this.current ? this.previous : this.current;
  }
}

export function secretFingerprint(secret: Buffer): string {
  return derive(secret, 'server-secret-fingerprint').toString('hex');
}

function deriveKeys(secret: Buffer): DerivedKeys {
  return {
    pepper: derive(secret, 'credential-secret-pepper'),
    sealingKey: derive(secret, 'private-key-sealing'),
    mediaUrlKey: derive(secret, 'media-url-signing'),
    fingerprint: secretFingerprint(secret),
  };
}

/** A key for one purpose, from a root secret: a distinct label gives an unrelated key. */
export function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
}

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

function unsealWith(key: Buffer, sealed: string): string {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}
