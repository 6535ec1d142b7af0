import { Controller, Get, Head, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { AppConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { Public } from '../../identity/index.js';
import { parseByteRange } from '../domain/byte-range.js';
import { MP3_CONTENT_TYPE } from '../domain/media.storage.js';
import { MEDIA_ROUTE, type MediaUrlProof } from '../domain/signed-media-url.js';
import { LocalMediaStorage, type LocalMediaFile } from '../infrastructure/local-media.storage.js';
import { ReadsRawQuery } from '../../../shared/http/undeclared-input.guard.js';

/**
 * Serves the local storage back end's signed URLs (DECISIONS 11). It belongs to that back
 * end, hence its direct use of LocalMediaStorage; with STORAGE=s3 it answers 404.
 *
 * Public because the signature in the URL is the credential: a player fetches the URL
 * without any token. Left out of the OpenAPI document: partners never build these URLs,
 * they receive them as `stream_url`.
 */
@ApiExcludeController()
// The signed URL's proof is its query, read by the handler (the API's operations refuse unknown ones).
@ReadsRawQuery()
@Controller(MEDIA_ROUTE)
export class LocalMediaController {
  constructor(
    private readonly storage: LocalMediaStorage,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  // Declared before GET so that Fastify does not derive a HEAD route from it, which would
  // read the whole file only to discard it.
  @Head('*')
  @Public()
  async head(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.serve(request, reply, false);
  }

  @Get('*')
  @Public()
  async get(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.serve(request, reply, true);
  }

  private async serve(request: FastifyRequest, reply: FastifyReply, withBody: boolean): Promise<void> {
    if (this.config.storage !== 'local') {
      throw new ApiError('not_found', `No endpoint answers ${request.method} ${request.url.split('?')[0]}.`);
    }
    const key = (request.params as Record<string, string>)['*'];
    const now = Date.now();
    const file = await this.storage.openSigned(key, request.query as MediaUrlProof, now);
    reply
      .header('Accept-Ranges', 'bytes')
      .header('Last-Modified', file.modifiedAt.toUTCString())
      // Cacheable by the player only while the URL is valid, never by shared caches.
      .header('Cache-Control', `private, max-age=${Math.floor((file.urlExpiresAt.getTime() - now) / 1000)}`);
    const range = rangeOf(request, file);
    if (range.kind === 'unsatisfiable') {
      const error = new ApiError('invalid_request', `The requested range is outside the file, which has ${file.size} bytes.`);
      reply.status(416).header('Content-Range', `bytes */${file.size}`).type('application/json; charset=utf-8').send(error.body);
      return;
    }
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, file.size - 1];
    if (range.kind === 'partial') reply.status(206).header('Content-Range', `bytes ${start}-${end}/${file.size}`);
    reply.type(MP3_CONTENT_TYPE).header('Content-Length', String(end - start + 1));
    if (!withBody || file.size === 0) {
      reply.send();
      return;
    }
    reply.send(createReadStream(file.path, { start, end }));
  }
}

/**
 * The range to send. A Range with an If-Range that does not match this file's
 * Last-Modified gets the whole file: the player's earlier bytes may be of an older file.
 */
function rangeOf(request: FastifyRequest, file: LocalMediaFile) {
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== file.modifiedAt.toUTCString()) return { kind: 'whole' } as const;
  return parseByteRange(request.headers.range, file.size);
}
