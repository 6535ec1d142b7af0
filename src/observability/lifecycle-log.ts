import type { AppConfig } from '../config/app-config.js';

/**
 * What a process runs with, for its start line: the settings an operator compares between
 * replicas, and never a secret (no password, no key, no secret: only whether one is set).
 */
export function configurationSummary(config: AppConfig): Record<string, unknown> {
  return {
    node_env: config.nodeEnv,
    host: config.host,
    port: config.port,
    public_base_url: config.publicBaseUrl,
    services: [...config.services],
    database: config.databaseUrl ? serverOf(config.databaseUrl) : 'embedded',
    database_read: config.databaseReadUrl ? serverOf(config.databaseReadUrl) : null,
    database_pool_size: config.databasePoolSize,
    storage: config.storage,
    s3_bucket: config.s3?.bucket ?? null,
    metrics_port: config.metricsPort ?? 'PORT',
    webhook_worker: config.webhookWorkerEnabled && config.mounts('platform'),
    platform_jwks_url: config.platformJwksUrl ?? null,
    trust_proxy: config.trustProxy,
    server_secret_previous_set: config.serverSecretPrevious !== undefined,
    log_level: config.logLevel,
  };
}

/** `host:port/database` of a connection string: no user, password or parameters. */
function serverOf(connectionString: string): string {
  const url = new URL(connectionString);
  return `${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
}
