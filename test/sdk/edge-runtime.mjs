// Plain Node on purpose: the edge entry of the installed SDK, loaded in a node:vm context that
// holds only what edge runtimes (Cloudflare Workers, Vercel Edge) give, Web Crypto and fetch
// among them, and no Node: no process, require, Buffer or node: module. Any import other than
// the entry's own files fails the load. Needs --experimental-vm-modules.
//   node --experimental-vm-modules edge-runtime.mjs <project directory>   (the task as JSON on stdin)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const project = resolve(process.argv[2]);
const task = JSON.parse(await text(process.stdin));
const manifestPath = createRequire(join(project, 'package.json')).resolve('@partner-reading/sdk/package.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const entry = join(dirname(manifestPath), manifest.exports['./edge'].import.default);

const results = {};
const context = vm.createContext({
  ...Object.fromEntries(
    ['crypto', 'fetch', 'Headers', 'Request', 'Response', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'AbortController', 'AbortSignal']
      .concat(['setTimeout', 'clearTimeout', 'atob', 'btoa', 'console', 'structuredClone', 'queueMicrotask'])
      .map((name) => [name, globalThis[name]]),
  ),
  report: (name, value) => (results[name] = value),
  task,
});

const modules = new Map();
const moduleAt = (path) => {
  if (!modules.has(path)) modules.set(path, new vm.SourceTextModule(readFileSync(path, 'utf8'), { identifier: pathToFileURL(path).href, context }));
  return modules.get(path);
};
const linker = (specifier, referencing) => {
  if (specifier === 'edge-entry') return moduleAt(entry);
  if (!specifier.startsWith('.')) throw new Error(`the edge entry imports ${specifier}, which an edge runtime does not have`);
  return moduleAt(resolve(dirname(fileURLToPath(referencing.identifier)), specifier));
};

const driver = new vm.SourceTextModule(
  `import * as sdk from 'edge-entry';
report('globals', { process: typeof process, require: typeof require, Buffer: typeof Buffer });
const client = new sdk.PartnerClient({ environment: 'sandbox', baseUrl: task.origin, clientId: task.clientId, clientSecret: task.clientSecret });
const categories = await client.listCategories();
report('categories', categories.data.length);
const write = await client.upsertEntitlement({ body: { subscriber_id: 'edge-1', product: 'textapp', status: 'active' } });
report('entitlement', write.ok);
const missing = await client.getChapterContent({ path: { id: 'no-such-novel', chapterNumber: 1 }, query: { subscriber_id: 'edge-1' } }).catch((error) => error);
report('missing', { name: missing.name, isApiError: missing instanceof sdk.ApiError, status: missing.status });
const feed = [];
for await (const event of client.events({ checkpoint: sdk.memoryCheckpoint(), follow: false })) feed.push(event.seq);
report('feed', feed);
const event = await sdk.verifyWebhook(task.delivery.secret, task.delivery.body, task.delivery.headers);
report('webhook', { event: event.event, seq: event.seq, event_id: event.event_id });
const forged = await sdk.verifyWebhook(task.delivery.secret, task.delivery.body + ' ', task.delivery.headers).catch((error) => error.name);
report('forged', forged);`,
  { identifier: 'edge-driver', context },
);
await driver.link(linker);
await driver.evaluate();
process.stdout.write(`${JSON.stringify(results)}\n`);
