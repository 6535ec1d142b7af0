/**
 * What one bench run does: `npm run bench [-- --quick] [-- --profile] [-- --only=a,b]
 * [-- --duration=S] [-- --connections=N] [-- --rounds=N] [-- --keep] [-- --scale=N]`.
 */
export interface DataSize {
  novels: number;
  chaptersPerNovel: number;
  subscribers: number;
  /** novel_progress rows: subscribers × novelsPerSubscriber. */
  novelsPerSubscriber: number;
  playbackPositions: number;
  activityRows: number;
  credentials: number;
  /** Tokens issued per credential for each endpoint's run (all distinct). */
  tokensPerCredential: number;
}

export interface BenchOptions {
  quick: boolean;
  profile: boolean;
  /** Leave the servers and the database running after the run (prints how to reach them). */
  keep: boolean;
  only?: ReadonlySet<string>;
  size: DataSize;
  /** Seconds of measured load per server per round. */
  durationSeconds: number;
  /** Seconds of unmeasured load before the measured rounds (JIT, caches, pools). */
  warmupSeconds: number;
  /** Measured rounds per endpoint; the order alternates (service first, then baseline first) to cancel drift. */
  rounds: number;
  connections: number;
  /**
   * 1: one run. N > 1: a run at the size above, then one with N times its subscribers and
   * their history, in one sitting, and a table of each figure at ×N over ×1.
   */
  scale: number;
}

const FULL: DataSize = {
  novels: 1_000,
  chaptersPerNovel: 30,
  subscribers: 100_000,
  novelsPerSubscriber: 3,
  playbackPositions: 100_000,
  activityRows: 2_000_000,
  credentials: 50,
  tokensPerCredential: 4,
};

const QUICK: DataSize = {
  novels: 200,
  chaptersPerNovel: 30,
  subscribers: 10_000,
  novelsPerSubscriber: 3,
  playbackPositions: 10_000,
  activityRows: 200_000,
  credentials: 20,
  tokensPerCredential: 2,
};

export function parseOptions(argv: readonly string[]): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`bench: unknown argument "${arg}"`);
    flags.set(match[1], match[2] ?? 'true');
  }
  const known = ['quick', 'profile', 'keep', 'only', 'duration', 'warmup', 'rounds', 'connections', 'scale'];
  const unknown = [...flags.keys()].filter((flag) => !known.includes(flag));
  if (unknown.length > 0) throw new Error(`bench: unknown option --${unknown[0]} (known: ${known.map((k) => `--${k}`).join(' ')})`);
  const quick = flags.get('quick') === 'true';
  const number = (name: string, fallback: number) => {
    const raw = flags.get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`bench: --${name} must be a positive number`);
    return value;
  };
  return {
    quick,
    profile: flags.get('profile') === 'true',
    keep: flags.get('keep') === 'true',
    only: flags.has('only')
      ? new Set(
          flags
            .get('only')!
            .split(',')
            .map((s) => s.trim()),
        )
      : undefined,
    size: quick ? QUICK : FULL,
    durationSeconds: number('duration', quick ? 2 : 10),
    warmupSeconds: number('warmup', quick ? 1 : 3),
    rounds: Math.round(number('rounds', quick ? 1 : 2)),
    connections: Math.round(number('connections', 32)),
    scale: Math.round(number('scale', 1)),
  };
}

/**
 * The data `factor` times bigger where it grows with a partner's audience: subscribers and
 * everything they write (progress, positions, activity, entitlements and their history).
 * The catalog and the credentials stay: a partner's readers grow, not its novels.
 */
export function scaledSize(size: DataSize, factor: number): DataSize {
  return {
    ...size,
    subscribers: size.subscribers * factor,
    playbackPositions: size.playbackPositions * factor,
    activityRows: size.activityRows * factor,
  };
}
