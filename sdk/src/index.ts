/**
 * @partner-reading/sdk: the Partner Reading and Listening API for Node.js servers.
 * README.md describes every export.
 */
export * from './core.js';
export { fileCheckpoint } from './file-checkpoint.js';
export { verifyWebhook } from './webhooks.js';
