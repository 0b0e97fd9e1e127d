/**
 * Secrets at rest: AES-256-GCM with a fresh 96-bit nonce per value, stored
 * as `v1.<nonce>.<tag>.<ciphertext>` (base64url). The key never leaves the
 * process; a value sealed under another key (or tampered with) does not
 * open, and says so, rather than yielding garbage.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return ['v1', nonce.toString('base64url'), c.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [v, nonce, tag, body] = sealed.split('.');
    if (v !== 'v1' || nonce === undefined || tag === undefined || body === undefined) throw new Error('not a sealed value');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
  }

  /** Whether `sealed` opens with this key (false: sealed under another key, or damaged). */
  opens(sealed: string): boolean {
    try {
      this.open(sealed);
      return true;
    } catch {
      return false;
    }
  }

  /** Names the key without revealing it: equal for equal keys, and nothing else can be learnt from it. */
  keyCheck(): string {
    return createHmac('sha256', this.key).update('keelson secret-key check v1').digest('base64url');
  }
}
