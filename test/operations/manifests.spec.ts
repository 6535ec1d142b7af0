import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { FILE_VARIABLES, HTTP_KEEP_ALIVE_TIMEOUT_MS, loadConfig } from '../../src/config/app-config.js';
import { HealthController } from '../../src/observability/health.controller.js';
import { PRODUCTION_NODE_FLAGS } from '../../bench/shared/servers.js';

/**
 * Issue 38, item 7: the example Kubernetes manifests and systemd unit, parsed and compared
 * with the service: probe paths are its health routes, ports and variables are ones it
 * reads (and accepts: loadConfig runs on them), secrets come from files, and the platform
 * waits longer than the pre-stop delay and the drain before it kills the process.
 */

/** Every variable the configuration reads, found in its source, and their `_FILE` variants. */
function variablesTheServiceReads(): Set<string> {
  const source = ['src/config/app-config.ts', 'src/config/env-file.ts'].map((file) => readFileSync(file, 'utf8')).join('\n');
  const names = [...source.matchAll(/env\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1] ?? match[2]);
  return new Set([...names, ...FILE_VARIABLES.map((name) => `${name}_FILE`)]);
}

const SECRET_VARIABLES = [...FILE_VARIABLES, 'S3_SECRET_ACCESS_KEY'];
const isSecretFile = (name: string) => FILE_VARIABLES.some((secret) => name === `${secret}_FILE`);

/** The route path a health handler answers, read from its Nest metadata. */
const routeOf = (handler: (...args: never[]) => unknown) => `/${Reflect.getMetadata('path', handler) as string}`;

/** The longest a drain takes after the delay: webhook attempts in flight, then kept-alive connections. */
const drainBoundSeconds = (config: ReturnType<typeof loadConfig>) => config.webhookTimeoutMs / 1000 + HTTP_KEEP_ALIVE_TIMEOUT_MS / 1000;

/** The environment with each `_FILE` variable pointing at a file of plausible content. */
function withSecretFilesWritten(env: Record<string, string>, path: (value: string) => string): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'prl-manifest-'));
  const contents: Record<string, string> = {
    SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-manifest',
    DATABASE_URL: 'postgres://app:pw@db.internal:5432/partner_api',
    DATABASE_READ_URL: 'postgres://app:pw@standby.internal:5432/partner_api',
  };
  const result = { ...env };
  for (const name of FILE_VARIABLES) {
    if (!env[`${name}_FILE`]) continue;
    const file = join(directory, path(env[`${name}_FILE`]).replaceAll('/', '_'));
    writeFileSync(file, `${contents[name]}\n`);
    result[`${name}_FILE`] = file;
  }
  return result;
}

describe('the Kubernetes example', () => {
  interface Container {
    ports: { name: string; containerPort: number }[];
    env: { name: string; value?: string }[];
    volumeMounts: { name: string; mountPath: string }[];
    readinessProbe: { httpGet: { path: string; port: string } };
    livenessProbe: { httpGet: { path: string; port: string } };
    startupProbe?: { httpGet: { path: string; port: string } };
    resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  }
  const documents = parseAllDocuments(readFileSync('deploy/kubernetes/deployment.yaml', 'utf8')).map((document) => document.toJS());
  const deployment = documents.find((document) => document.kind === 'Deployment');
  const pod = deployment.spec.template.spec as {
    terminationGracePeriodSeconds: number;
    containers: Container[];
    volumes: { name: string; secret?: { secretName: string } }[];
  };
  const container = pod.containers[0];
  const env = Object.fromEntries(container.env.map((variable) => [variable.name, variable.value ?? '']));
  const config = loadConfig(withSecretFilesWritten(env, (path) => path));
  const portNamed = (name: string) => container.ports.find((port) => port.name === name)?.containerPort;

  it('sets only variables the service reads, and the configuration accepts them', () => {
    const known = variablesTheServiceReads();
    expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
    expect(config).toMatchObject({ isProduction: true, port: portNamed('http'), metricsPort: portNamed('metrics'), shutdownDelaySeconds: 10 });
    expect(deployment.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(config.metricsPort));
  });

  it("probes the service's readiness and liveness routes on its port", () => {
    expect(container.readinessProbe.httpGet).toEqual({ path: routeOf(HealthController.prototype.ready), port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: routeOf(HealthController.prototype.live), port: 'http' });
    expect(container.startupProbe?.httpGet).toEqual({ path: routeOf(HealthController.prototype.live), port: 'http' });
    expect(portNamed('http')).toBe(config.port);
  });

  it('waits longer than the pre-stop delay and the drain before it kills the pod', () => {
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(config.shutdownDelaySeconds + drainBoundSeconds(config));
  });

  it('reads secrets from files of a mounted secret, never from a value in the manifest', () => {
    for (const name of SECRET_VARIABLES) expect({ name, inline: name in env }).toEqual({ name, inline: false });
    const secretMounts = container.volumeMounts.filter((mount) => pod.volumes.find((volume) => volume.name === mount.name)?.secret);
    const files = Object.entries(env).filter(([name]) => isSecretFile(name));
    expect(files.map(([name]) => name)).toEqual(expect.arrayContaining(['SERVER_SECRET_FILE', 'DATABASE_URL_FILE']));
    for (const [name, path] of files)
      expect({ name, mounted: secretMounts.some((mount) => path.startsWith(`${mount.mountPath}/`)) }).toEqual({ name, mounted: true });
  });

  it('requests CPU and memory and limits memory', () => {
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits?.memory).toEqual(expect.any(String));
  });
});

describe('the systemd unit', () => {
  const lines = readFileSync('deploy/systemd/partner-api.service', 'utf8')
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  const values = (key: string) => lines.filter(([name]) => name === key).map(([, value]) => value);
  const env = Object.fromEntries(
    values('Environment').map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]),
  );
  const credentials = values('LoadCredential').map((credential) => credential.split(':')[0]);
  const config = loadConfig({ ...withSecretFilesWritten(env, (path) => path.replace('%d/', '')), PUBLIC_BASE_URL: 'https://api.example.com' });

  it('runs node itself on the built service, so that SIGTERM reaches it', () => {
    expect(values('ExecStart')).toEqual([expect.stringMatching(/^\/usr\/bin\/node (--[\w-]+(=\w+)? )*dist\/src\/main\.js$/)]);
    expect(values('KillSignal')).toEqual(['SIGTERM']);
  });

  it('sets only variables the service reads, and the configuration accepts them', () => {
    const known = variablesTheServiceReads();
    expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
    expect(config).toMatchObject({ isProduction: true, port: 3000, metricsPort: 9464, shutdownDelaySeconds: 10 });
  });

  it('reads each secret from a systemd credential of its own', () => {
    for (const name of SECRET_VARIABLES) expect({ name, inline: name in env }).toEqual({ name, inline: false });
    const files = Object.entries(env).filter(([name]) => isSecretFile(name));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const [name, path] of files)
      expect({ name, credential: credentials.includes(path.replace('%d/', '')) && path.startsWith('%d/') }).toEqual({ name, credential: true });
  });

  it('waits longer than the pre-stop delay and the drain before SIGKILL', () => {
    expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(config.shutdownDelaySeconds + drainBoundSeconds(config));
  });
});

describe('every way of starting the service', () => {
  /** The image's CMD, `["node", …flags, "dist/src/main.js"]`: the reference the others follow. */
  const imageCommand = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync('Dockerfile', 'utf8'))![1]) as string[];
  const flagsOf = (command: readonly string[]) => command.slice(command.indexOf('node') + 1, command.indexOf('dist/src/main.js'));
  const imageFlags = flagsOf(imageCommand);
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const systemd = /^ExecStart=\/usr\/bin\/(.*)$/m.exec(readFileSync('deploy/systemd/partner-api.service', 'utf8'))![1];
  const deployment = parseAllDocuments(readFileSync('deploy/kubernetes/deployment.yaml', 'utf8'))
    .map((document) => document.toJS())
    .find((document) => document.kind === 'Deployment');

  it('fixes the young generation, which Node 24 otherwise sizes from the memory it sees (ADR 0033)', () => {
    expect(imageCommand.at(-1)).toBe('dist/src/main.js');
    expect(imageFlags).toContain('--max-semi-space-size=16');
  });

  it('runs node with the same flags in the deploy examples, the npm scripts and the bench', () => {
    const commands = {
      kubernetes: deployment.spec.template.spec.containers[0].args as string[],
      systemd: systemd.split(' '),
      'npm start': scripts.start.split('exec ')[1].split(' '),
      'npm run start:prod': scripts['start:prod'].split('exec ')[1].split(' '),
      bench: ['node', ...PRODUCTION_NODE_FLAGS, 'dist/src/main.js'],
    };
    for (const [where, command] of Object.entries(commands)) expect({ where, flags: flagsOf(command) }).toEqual({ where, flags: imageFlags });
  });
});
