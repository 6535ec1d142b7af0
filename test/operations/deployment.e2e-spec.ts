import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { validate } from 'dockerfile-utils';
import { parse } from 'yaml';
import { freePort } from '../../src/shared/net/free-port.js';
import { buildOnce, runNode } from '../support/processes.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * Issue 27, items 1, 5 and 7, and the Dockerfile and compose checks: what an operator
 * deploys, tested without a Docker engine (none runs here). The documented start command
 * and the image's command are each run as a process tree and stopped with SIGTERM during a
 * long request.
 */
const dockerfile = readFileSync('Dockerfile', 'utf8');
const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, { image?: string; build?: unknown; init?: boolean; environment?: Record<string, string>; volumes?: string[]; depends_on?: object }>;
  volumes: Record<string, unknown>;
};

/** The image's CMD, in exec form. */
function imageCommand(): string[] {
  const line = dockerfile.split('\n').find((text) => text.startsWith('CMD '));
  return JSON.parse(line!.slice(4)) as string[];
}

let databaseUrl: string;
beforeAll(async () => {
  buildOnce();
  databaseUrl = await createTestDatabase();
}, 120_000);

const productionEnv = () => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ENV_FILE: 'none',
  NODE_ENV: 'production',
  DATABASE_URL: databaseUrl,
  SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-deploy',
  PUBLIC_BASE_URL: 'https://api.example.com',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
});

/** Writes `head` at once and `rest` after `delayMs` on one connection; resolves with the answer's status and body. */
function rawRequest(port: number, head: string, rest: string, delayMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (head) socket.write(head);
      setTimeout(() => socket.write(rest), delayMs);
    });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
      if (/\r\n\r\n[\s\S]*\}$/.test(answer)) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0), body: answer.split('\r\n\r\n')[1] ?? '' }));
  });
}

/** Starts `command`, holds a long request open, sends SIGTERM to the command's own process, and reports what happened. */
async function stopDuringLongRequest(command: string, args: string[]) {
  const port = await freePort();
  const child = spawn(command, args, { env: { ...productionEnv(), PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${origin}/health/live`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The service process: the command itself, or its only child when a launcher (npm) runs it.
  const servicePid = Number(
    execFileSync('sh', ['-c', `pgrep -P ${child.pid} || echo ${child.pid}`])
      .toString()
      .trim()
      .split('\n')[0],
  );
  // A long request: its headers arrive before SIGTERM, its body 1.5 s later. And a
  // keep-alive connection, open before SIGTERM, that sends a request after it.
  const form = 'grant_type=client_credentials&client_id=live_nobody&client_secret=wrong';
  const inFlight = rawRequest(
    port,
    `POST /platform/v1/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n`,
    form,
    1_500,
  );
  const lateOnOpenConnection = rawRequest(port, '', 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n', 500);
  await new Promise((resolve) => setTimeout(resolve, 300));
  process.kill(child.pid!, 'SIGTERM');
  const [code, inFlightAnswer, lateAnswer] = await Promise.all([exited, inFlight, lateOnOpenConnection]);
  let serviceAlive = true;
  try {
    process.kill(servicePid, 0);
  } catch {
    serviceAlive = false;
  }
  // Whoever the launcher left behind: a node that outlived it would still hold the port.
  const portHeld = await fetch(`${origin}/health/live`).then(
    () => true,
    () => false,
  );
  return { code, inFlightAnswer, lateAnswer, serviceAlive, portHeld, output };
}

describe('SIGTERM', () => {
  it.each([
    ['the documented start command, npm run start:prod', 'npm', ['run', '--silent', 'start:prod']],
    ['the development start command, npm start', 'npm', ['start', '--silent']],
    ["the image's command", imageCommand()[0], imageCommand().slice(1)],
  ])(
    'to %s lets the request in flight finish, then the whole process tree exits 0',
    async (_name, command, args) => {
      const result = await stopDuringLongRequest(command as string, args as string[]);
      expect({
        code: result.code,
        inFlight: result.inFlightAnswer.status,
        late: result.lateAnswer.status,
        lateError: JSON.parse(result.lateAnswer.body || '{}').error,
        serviceAlive: result.serviceAlive,
        portHeld: result.portHeld,
      }).toEqual({ code: 0, inFlight: 401, late: 503, lateError: 'temporarily_unavailable', serviceAlive: false, portHeld: false });
    },
    90_000,
  );
});

describe('SHUTDOWN_DELAY_SECONDS, with the secrets read from files', () => {
  it('keeps serving with readiness 503 for the delay, then drains and exits 0', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'prl-delay-'));
    const { SERVER_SECRET, DATABASE_URL, ...env } = productionEnv();
    writeFileSync(join(directory, 'server-secret'), `${SERVER_SECRET}\n`);
    writeFileSync(join(directory, 'database-url'), `${DATABASE_URL}\n`);
    const port = await freePort();
    const service = runNode('dist/src/main.js', [], {
      ...env,
      PORT: String(port),
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY_SECONDS: '4',
      SERVER_SECRET_FILE: join(directory, 'server-secret'),
      DATABASE_URL_FILE: join(directory, 'database-url'),
    });
    const origin = `http://127.0.0.1:${port}`;
    try {
      await service.waitForOutput(/Swagger UI/, 60_000);
      expect((await fetch(`${origin}/health/ready`)).status).toBe(200);
      service.child.kill('SIGTERM');
      await service.waitForOutput(/"msg":"shutdown delay begun"/);
      // New connections, as a load balancer's probes and requests make them.
      const [ready, live] = await Promise.all([fetch(`${origin}/health/ready`), fetch(`${origin}/health/live`)]);
      expect({ ready: ready.status, live: live.status, drainBegun: service.output().includes('"msg":"drain begun"') }).toEqual({
        ready: 503,
        live: 200,
        drainBegun: false,
      });
      expect(await service.exit()).toBe(0);
      const lifecycle = service
        .output()
        .split('\n')
        .filter((line) => line.includes('"context":"Lifecycle"'))
        .map((line) => JSON.parse(line).msg);
      expect(lifecycle).toEqual(['service started', 'shutdown delay begun', 'drain begun', 'drain finished', 'exiting']);
    } finally {
      service.child.kill('SIGKILL');
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the Dockerfile', () => {
  it('passes dockerfile-utils validation with no problem', () => {
    expect(validate(dockerfile).map((problem) => `${problem.range.start.line + 1}: ${problem.message}`)).toEqual([]);
  });

  it('runs node itself on a file the build makes, as the node user, on a supported LTS', () => {
    const [command, ...args] = imageCommand();
    expect(command).toBe('node');
    expect(existsSync(args.at(-1)!)).toBe(true);
    expect(dockerfile).toMatch(/^USER node$/m);
    for (const from of dockerfile.match(/^FROM \S+/gm)!) expect(from).toMatch(/^FROM node:(22|24)[.-]/);
  });

  it('installs production dependencies the documented way and keeps DATA_DIR on a volume', () => {
    expect(dockerfile).toContain('RUN npm run install:production');
    expect(dockerfile).toMatch(/^ENV NODE_ENV=production/m);
    expect(dockerfile).toMatch(/DATA_DIR=\/app\/data/);
    expect(dockerfile).toMatch(/^VOLUME \["\/app\/data"\]$/m);
  });
});

describe('the compose file', () => {
  it('names an image or a build for every service, and declares every named volume it mounts', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect({ name, runs: Boolean(service.image || service.build) }).toEqual({ name, runs: true });
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0];
        if (!source.startsWith('.') && !source.startsWith('/')) expect(Object.keys(compose.volumes)).toContain(source);
      }
    }
  });

  it('runs the service under an init, requires the secret and origin instead of inventing them, and keeps media in the object store signed for a reachable host', () => {
    const api = compose.services.api;
    expect(api.init).toBe(true);
    expect(api.environment?.SERVER_SECRET).toMatch(/^\$\{SERVER_SECRET:\?/);
    expect(api.environment?.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:\?/);
    expect(api.environment?.STORAGE).toBe('s3');
    expect(api.environment?.S3_PUBLIC_ENDPOINT).toMatch(/localhost:9000/);
    expect(compose.services.minio.volumes).toContain('media:/data');
  });
});
