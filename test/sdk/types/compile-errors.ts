// Mistakes the SDK's types refuse: each line under `@ts-expect-error` must fail to compile
// (tsc reports an unused `@ts-expect-error` otherwise). Compiled by the repository's type
// check against the sources, and by test/sdk/packed-sdk.e2e-spec.ts against the installed
// package, in TypeScript projects with `module: node16` and `moduleResolution: bundler`.
import type { ApiError, PartnerClient, RateLimitError } from '../../../sdk/src/index.js';

declare const live: PartnerClient<'live'>;
declare const sandbox: PartnerClient<'sandbox'>;
declare const eitherEnvironment: PartnerClient;
declare const failure: ApiError;
declare const limited: RateLimitError;

export async function mistakes(): Promise<void> {
  // @ts-expect-error a misspelt error code
  if (failure.error === 'chapter_lockd') console.error('never');
  if (failure.error === 'chapter_locked') console.error('a code of the contract compiles');
  // @ts-expect-error a code that a 429 never carries
  if (limited.error === 'not_found') console.error('never');

  // @ts-expect-error call options in the place of a parameterless operation's input
  await sandbox.listCategories({ retry: { maxRetries: 0 } });
  // @ts-expect-error any key at all, for an operation without parameters
  await live.listWebhookEndpoints({ query: { limit: 5 } });
  await sandbox.listCategories({}, { retry: { maxRetries: 0 } });
  await live.listCategories();

  // @ts-expect-error test clocks exist on a sandbox client only
  await live.createTestClock({ body: { frozen_time: '2026-12-01T12:00:00Z' } });
  // @ts-expect-error nor on a client whose environment is not known when compiling
  await eitherEnvironment.listTestClocks();
  // @ts-expect-error nor the sandbox twins
  await live.sandboxListCategories();
  // @ts-expect-error nor by name through call or request
  await live.call('listTestClocks');
  await sandbox.createTestClock({ body: { frozen_time: '2026-12-01T12:00:00Z' } });
  await sandbox.call('listTestClocks');
  await live.request('listCategories');

  // @ts-expect-error nor paged through paginate
  for await (const novel of live.paginate('sandboxListNovels')) console.log(novel.id);
  // @ts-expect-error nor on a client whose environment is not known when compiling
  for await (const novel of eitherEnvironment.paginate('sandboxListNovels')) console.log(novel.id);
  for await (const novel of live.paginate('listNovels', { query: { page_size: 10 } })) console.log(novel.title);
  for await (const novel of sandbox.paginate('sandboxListNovels')) console.log(novel.id);
}
