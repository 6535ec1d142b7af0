import { createServer, type Server } from 'node:http';
import type { HttpMetrics } from './metrics.js';

/**
 * /metrics on a port of its own (METRICS_PORT), so that the partner-facing port does not
 * expose operational figures and a firewall can keep this one internal.
 */
export async function startMetricsServer(metrics: HttpMetrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.render().then(
      (body) => response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics collection failed.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
