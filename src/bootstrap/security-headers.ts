import type { FastifyReply } from 'fastify';
import type { AppConfig } from '../config/app-config.js';

/**
 * Swagger UI's page carries inline styles and scripts of its own and shows data: images;
 * nothing else is loaded from elsewhere, and no site may frame it (clickjacking of the
 * Authorize dialog, where a token is pasted).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** A year: the usual value for a service that will stay on https. */
const HSTS = 'max-age=31536000';

/** Headers every answer carries, set before any handler runs so that errors carry them too. */
export function securityHeaders(config: AppConfig): (url: string, reply: FastifyReply) => void {
  const https = config.publicBaseUrl.startsWith('https:');
  return (url, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    if (https) reply.header('strict-transport-security', HSTS);
    if (url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?')) {
      reply.header('content-security-policy', DOCS_CONTENT_SECURITY_POLICY);
      reply.header('x-frame-options', 'DENY');
    }
  };
}
