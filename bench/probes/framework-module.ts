// The framework probes' routes, mounted only by bench/probes/framework.ts through createApp's
// `extraModules` (main.ts passes none, so no setting mounts them in production):
// - GET /v1/bench-probe/json: the json probe's body, after the access guard has verified a token;
// - GET /v1/bench-probe/json-page: the json-page probe's text, as the catalog sends a page;
// - GET /v1/bench-probe/pk-select/:id: the pk-select probe's statement and answer, after the guard;
// - PUT /v1/bench-probe/upsert/:id: the upsert probe's, its body a class-validator DTO as the PUT's,
//   through the idempotency interceptor as the PUT.
import { Body, Controller, Get, Header, Module, Param, Put } from '@nestjs/common';
import { IsDefined, IsInt, IsString, Max, Min } from 'class-validator';
import { TakesIdempotencyKey } from '../../src/modules/idempotency/index.js';
import { RequireScopes } from '../../src/modules/identity/index.js';
import { ApiError } from '../../src/shared/errors/api-error.js';
import { Db } from '../../src/shared/persistence/db.js';
import {
  FRAMEWORK_PROBE_PATHS,
  JSON_PROBE_ANSWER,
  pageProbeAnswer,
  PK_SELECT,
  probePageBytes,
  type ProbeRow,
  probeRowAnswer,
  UPSERT,
  type UpsertBody,
} from './answers.js';

class UpsertDto implements UpsertBody {
  @IsDefined()
  @IsString()
  novel_id: string;

  @IsDefined()
  @IsInt()
  @Min(1)
  chapter_number: number;

  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(86_400)
  position_seconds: number;
}

@Controller()
class FrameworkProbeController {
  constructor(private readonly db: Db) {}

  @Get(FRAMEWORK_PROBE_PATHS.json)
  @RequireScopes()
  json(): typeof JSON_PROBE_ANSWER {
    return JSON_PROBE_ANSWER;
  }

  private readonly page = pageProbeAnswer(probePageBytes());

  @Get(FRAMEWORK_PROBE_PATHS.jsonPage)
  @RequireScopes()
  @Header('content-type', 'application/json; charset=utf-8')
  jsonPage(): string {
    return this.page;
  }

  @Get(`${FRAMEWORK_PROBE_PATHS.pkSelect}/:id`)
  @RequireScopes()
  async pkSelect(@Param('id') id: string): Promise<ReturnType<typeof probeRowAnswer>> {
    const [row] = await this.db.prepared<ProbeRow>(PK_SELECT.name, PK_SELECT.text, [Number(id)]);
    if (!row) throw new ApiError('not_found', `No probe row ${id}.`);
    return probeRowAnswer(row);
  }

  @Put(`${FRAMEWORK_PROBE_PATHS.upsert}/:id`)
  @RequireScopes()
  // As every write of the surface (the PUT it stands for has it).
  @TakesIdempotencyKey()
  async upsert(@Param('id') id: string, @Body() body: UpsertDto): Promise<UpsertBody & { updated_at: string }> {
    const [row] = await this.db.prepared<{ updated_at: Date }>(UPSERT.name, UPSERT.text, [
      Number(id),
      body.novel_id,
      body.chapter_number,
      body.position_seconds,
    ]);
    return { novel_id: body.novel_id, chapter_number: body.chapter_number, position_seconds: body.position_seconds, updated_at: row.updated_at.toISOString() };
  }
}

@Module({ controllers: [FrameworkProbeController] })
export class FrameworkProbeModule {}
