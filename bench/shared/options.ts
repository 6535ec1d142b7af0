/**
 * What one bench run does: `npm run bench [-- --quick] [-- --profile] [-- --only=a,b]
 * [-- --duration=S] [-- --connections=N] [-- --rounds=N] [-- --keep] [-- --scale=N] [-- --node=PATH]`.
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

/** Connections the bench loads an endpoint with unless the scenario or --connections says otherwise. */
export const DEFAULT_CONNECTIONS = 32;

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
  /** The Node binary the servers run on (service, baseline, probes); the bench's own when unset. */
  node?: string;
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

/** `--name=value` and `--name` flags, refused when not in `known`; `number` reads a positive one. */
function parseFlags(command: string, argv: readonly string[], known: readonly string[]) {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`${command}: unknown argument "${arg}"`);
    flags.set(match[1], match[2] ?? 'true');
  }
  const unknown = [...flags.keys()].filter((flag) => !known.includes(flag));
  if (unknown.length > 0) throw new Error(`${command}: unknown option --${unknown[0]} (known: ${known.map((k) => `--${k}`).join(' ')})`);
  const number = (name: string, fallback: number) => {
    const raw = flags.get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${command}: --${name} must be a positive number`);
    return value;
  };
  return { flags, number };
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { flags, number } = parseFlags('bench', argv, ['quick', 'profile', 'keep', 'only', 'duration', 'warmup', 'rounds', 'connections', 'scale', 'node']);
  const quick = flags.get('quick') === 'true';
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
    connections: Math.round(number('connections', DEFAULT_CONNECTIONS)),
    scale: Math.round(number('scale', 1)),
    node: flags.has('node') ? nodePath(flags.get('node')!) : undefined,
  };
}

/** `--node=PATH`: a Node binary (a path, or a name found on PATH such as `node`). */
function nodePath(value: string): string {
  if (value === 'true' || value.trim() === '') throw new Error('bench: --node takes the path of a Node binary, e.g. --node=/usr/bin/node');
  return value;
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

/** What one soak does: `npm run soak [-- --quick] [-- --minutes=N] [-- --rate-fraction=F] [-- --rate=key:N,key:N]`. */
export interface SoakOptions {
  quick: boolean;
  size: DataSize;
  minutes: number;
  /** The share of the machine the traffic uses in all (each scenario an equal part of it). */
  rateFraction: number;
  /** Requests per second by scenario key, instead of the share. */
  rates: Record<string, number>;
  /** How each scenario's capacity is measured before the traffic. */
  capacityRun: { warmupSeconds: number; durationSeconds: number };
}

export function parseSoakOptions(argv: readonly string[]): SoakOptions {
  const { flags, number } = parseFlags('soak', argv, ['quick', 'minutes', 'rate-fraction', 'rate']);
  const quick = flags.get('quick') === 'true';
  const rates: Record<string, number> = {};
  for (const pair of flags.get('rate')?.split(',') ?? []) {
    const [key, value] = pair.split(':').map((s) => s.trim());
    const rate = Number(value);
    if (!key || !Number.isFinite(rate) || rate < 0) throw new Error(`soak: --rate takes key:requests-per-second pairs, not "${pair}"`);
    rates[key] = rate;
  }
  return {
    quick,
    size: quick ? QUICK : FULL,
    minutes: Math.round(number('minutes', 15)),
    rateFraction: number('rate-fraction', 0.5),
    rates,
    capacityRun: quick ? { warmupSeconds: 1, durationSeconds: 2 } : { warmupSeconds: 2, durationSeconds: 5 },
  };
}
