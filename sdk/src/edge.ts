/**
 * @partner-reading/sdk/edge: the SDK for runtimes with fetch and Web Crypto but no Node
 * built-ins (Cloudflare Workers, Vercel Edge, Deno): the client, the feed with a checkpoint
 * of your own, and `verifyWebhook` on Web Crypto (asynchronous). It imports no `node:` module
 * and no dependency.
 */
export * from './core.js';
export { verifyWebhook } from './edge-webhooks.js';
