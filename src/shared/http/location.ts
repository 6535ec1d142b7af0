import type { FastifyReply } from 'fastify';

/**
 * `Location` of a resource a POST to a collection just created: the collection's path
 * followed by the new id, on the surface the request came through (/v1 or /sandbox/v1).
 */
export function setCreatedLocation(reply: FastifyReply, id: string): void {
  const collection = reply.request.url.split('?')[0].replace(/\/+$/, '');
  reply.header('location', `${collection}/${encodeURIComponent(id)}`);
}
