/** What a token endpoint answers. */
export interface IssuedToken {
  access_token: string;
  expires_in: number;
}

/**
 * One access token, cached and renewed: a call takes the cached token until `marginMs`
 * before it expires (60 s by default, of the service's 600); then one request fetches the next, and every call waiting meanwhile
 * shares it, however many there are.
 */
export class TokenCache {
  private current: { token: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly clock: () => number,
    private readonly marginMs: number,
  ) {}

  /** A token with more than the margin to live, from the cache or one shared request. */
  get(): Promise<string> {
    if (this.current && this.clock() < this.current.refreshAt) return Promise.resolve(this.current.token);
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /**
   * The service refused `token` (401 `invalid_token`): forget it, unless a newer one has
   * replaced it already, so that many calls refused together fetch one new token.
   */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async fetch(): Promise<string> {
    const requestedAt = this.clock();
    const issued = await this.issue();
    // The lifetime counts from when we asked (the answer may have taken a while); a token
    // shorter-lived than twice the margin is renewed at half its life.
    const lifetimeMs = issued.expires_in * 1000;
    this.current = { token: issued.access_token, refreshAt: requestedAt + lifetimeMs - Math.min(this.marginMs, lifetimeMs / 2) };
    return issued.access_token;
  }
}
