/**
 * Which signing keys sign and which are published, derived from each key's activation
 * time alone (DECISIONS 3). A new key is published at once but signs only from
 * `signsFrom` (creation + activation delay), so verifiers that cache the key set learn
 * it before meeting a token it signed. A key stops signing when its successor starts,
 * and stays published until every token it may have signed has expired and every cache
 * has refreshed.
 */
export interface ScheduledKey {
  kid: string;
  signsFrom: Date;
}

export interface KeySchedulePolicy {
  tokenLifetimeSeconds: number;
  activationDelaySeconds: number;
  /** How stale a replica's view of the keys may be: it may sign with a predecessor that long. */
  keyRefreshSeconds: number;
}

/**
 * The key that signs at `now`: the latest one already active. Before any is active (a
 * replica whose clock runs behind the one that created the issuer's first key), the
 * earliest: every verifier publishes it, and there is no older key to wait for.
 */
export function signingKeyAt<K extends ScheduledKey>(keys: readonly K[], now: Date): K | undefined {
  const ordered = byActivation(keys);
  return ordered.filter((k) => k.signsFrom.getTime() <= now.getTime()).at(-1) ?? ordered[0];
}

/** The keys a verifier must be able to find at `now`: next, current and recent previous ones. */
export function publishedKeysAt<K extends ScheduledKey>(keys: readonly K[], now: Date, policy: KeySchedulePolicy): K[] {
  const ordered = byActivation(keys);
  return ordered.filter((_key, index) => {
    const successor = ordered.slice(index + 1).find((k) => k.signsFrom.getTime() <= now.getTime());
    // No active successor: the key signs now or will sign.
    if (!successor) return true;
    return now.getTime() < retirementOfPredecessors(successor.signsFrom, policy).getTime();
  });
}

/** When the keys a successor activating at `signsFrom` replaces stop being published: their tokens then verify nowhere. */
export function retirementOfPredecessors(signsFrom: Date, policy: KeySchedulePolicy): Date {
  return new Date(signsFrom.getTime() + (policy.tokenLifetimeSeconds + policy.activationDelaySeconds + policy.keyRefreshSeconds) * 1000);
}

function byActivation<K extends ScheduledKey>(keys: readonly K[]): K[] {
  return [...keys].sort((a, b) => a.signsFrom.getTime() - b.signsFrom.getTime() || a.kid.localeCompare(b.kid));
}
