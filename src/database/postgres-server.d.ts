export declare const REACHABLE_HOME: string;

/** A start failure of the embedded database; its message is one line: cause and remedy. */
export declare class EmbeddedDatabaseError extends Error {}

export interface PostgresServerOptions {
  dataDir: string;
  port: number;
  /** Superuser created by initdb; its password is set only when the cluster is created. */
  user: string;
  password: string;
  /** Extra `postgres` command-line flags, e.g. ['-c', 'fsync=off']. */
  flags?: string[];
  log?: (line: string) => void;
}

export interface PostgresServer {
  /** Where the cluster actually lives (see clusterDirectory). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export declare function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer>;

/** The directory that holds the cluster of `dataDir`: itself, or its copy under REACHABLE_HOME. */
export declare function clusterDirectory(dataDir: string): string;
