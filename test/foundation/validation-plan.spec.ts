import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { getMetadataStorage } from 'class-validator';
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VALIDATION_OPTIONS } from '../../src/shared/http/validation.js';
import { ValidationPlan } from '../../src/shared/http/validation-plan.js';

/**
 * The validation plan answers for a DTO only what Nest's validation pipe (class-transformer
 * and class-validator) would answer: for every body and query DTO of every route, and any
 * value, an accepted value is accepted by the pipe with an equal instance.
 */
type Dto = new () => object;
interface RouteDto {
  dto: Dto;
  type: 'body' | 'query';
}

async function routeDtos(): Promise<RouteDto[]> {
  const found = new Map<Dto, RouteDto>();
  const files = readdirSync(join(process.cwd(), 'src/modules'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.controller.ts'));
  for (const file of files) {
    const exports = (await import(pathToFileURL(join(process.cwd(), 'src/modules', file)).href)) as Record<string, unknown>;
    for (const controller of Object.values(exports)) {
      if (typeof controller !== 'function') continue;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { index: number; data?: unknown }>;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ?? []) as Dto[];
        for (const [key, arg] of Object.entries(args)) {
          const kind = Number(key.split(':')[0]);
          if (arg.data !== undefined || (kind !== RouteParamtypes.BODY && kind !== RouteParamtypes.QUERY)) continue;
          found.set(types[arg.index], { dto: types[arg.index], type: kind === RouteParamtypes.BODY ? 'body' : 'query' });
        }
      }
    }
  }
  return [...found.values()];
}

let dtos: RouteDto[];
// Nest's own pipe with the service's options, without the plan in front of it.
const pipe = new ValidationPipe(VALIDATION_OPTIONS);
beforeAll(async () => {
  dtos = await routeDtos();
});

/** The DTOs of the hot routes: each must have a plan that the values below exercise. */
const HOT = ['NovelQueryDto', 'OptionalSubscriberQueryDto', 'SubscriberQueryDto', 'PlaybackPositionQueryDto', 'PlaybackPositionWriteDto', 'StreamQueryDto'];

test("the route DTOs are found, and the hot routes' DTOs have a plan", () => {
  expect(dtos.map((d) => d.dto.name)).toEqual(expect.arrayContaining(HOT));
  expect(dtos.filter((d) => ValidationPlan.of(d.dto)).map((d) => d.dto.name)).toEqual(expect.arrayContaining(HOT));
});

/** Values near the rules (identifiers, numbers as text, bounds) and anything at all. */
const field = fc.oneof(
  fc.constantFrom(
    'sub-42',
    'the-heir',
    'the-heir-ch2',
    'novel-00004-ch1',
    'romance',
    'audio',
    '1',
    '20',
    '100',
    '0',
    '-1',
    '1e3',
    '0x10',
    ' 1',
    'true',
    'false',
    '',
    '2026-01-31',
    'a'.repeat(130),
  ),
  fc.constantFrom(0, 1, 95, 86_400, 86_401, -1, 1.5, 2 ** 53, true, false, null),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.object({ maxDepth: 1, maxKeys: 2 }),
);

/** A valid value of each field the hot DTOs declare, as a query string or a JSON body carries it. */
const VALID: Record<string, unknown> = {
  subscriber_id: 'sub-42',
  novel_id: 'the-heir',
  chapter_id: 'the-heir-ch2',
  position_seconds: 95,
  category_id: 'romance',
  tag: 'drama',
  has_audio: 'true',
  page: '2',
  page_size: '20',
};

/** Objects of the DTO's fields, each valid or anything (unknown fields too), so near misses of every rule come up. */
const shapeOf = (dto: Dto) => {
  const declared = [...new Set(Object.keys(new dto()).concat(...propertiesOf(dto)))];
  const valid = fc.subarray(declared.filter((name) => name in VALID)).map((names) => Object.fromEntries(names.map((name) => [name, VALID[name]])));
  const changes = fc.dictionary(fc.constantFrom(...declared, ...declared, 'unknown_field', 'constructor', 'toString'), field, { maxKeys: 2 });
  return fc.tuple(valid, changes, fc.boolean()).map(([base, changed, change]) => (change ? { ...base, ...changed } : base));
};

const propertiesOf = (dto: Dto) =>
  getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', false, false)
    .map((metadata) => metadata.propertyName);

async function throughPipe(value: unknown, metadata: ArgumentMetadata): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: await pipe.transform(value, metadata) };
  } catch {
    return { ok: false };
  }
}

test('whatever a plan accepts, the pipe accepts with an equal instance', async () => {
  for (const { dto, type } of dtos) {
    const plan = ValidationPlan.of(dto);
    if (!plan) continue;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(shapeOf(dto), async (value) => {
        const planned = plan.accept(structuredClone(value));
        if (planned === undefined) return;
        accepted++;
        const full = await throughPipe(structuredClone(value), { type, metatype: dto, data: undefined });
        expect(full).toEqual({ ok: true, value: expect.any(dto) });
        expect(planned).toBeInstanceOf(dto);
        expect(planned).toStrictEqual((full as { value: unknown }).value);
      }),
      { numRuns: 1000 },
    );
    // A hot DTO's plan that never accepted would pass the property while being useless.
    if (HOT.includes(dto.name)) expect({ dto: dto.name, accepted: accepted > 0 }).toEqual({ dto: dto.name, accepted: true });
  }
});

test("the hot routes' usual requests are taken by the plan, not left to the pipe", () => {
  const usual: [string, Record<string, unknown>][] = [
    ['NovelQueryDto', {}],
    ['NovelQueryDto', { page: '3', page_size: '50', has_audio: 'false', category_id: 'romance' }],
    ['OptionalSubscriberQueryDto', {}],
    ['OptionalSubscriberQueryDto', { subscriber_id: 'sub-42' }],
    ['SubscriberQueryDto', { subscriber_id: 'sub-42' }],
    ['StreamQueryDto', { subscriber_id: 'sub-42' }],
    ['PlaybackPositionQueryDto', { novel_id: 'the-heir' }],
    ['PlaybackPositionWriteDto', { novel_id: 'the-heir', chapter_id: 'the-heir-ch2', position_seconds: 95 }],
  ];
  for (const [name, value] of usual) {
    const { dto } = dtos.find((d) => d.dto.name === name)!;
    expect({ name, value, taken: ValidationPlan.of(dto)?.accept(value) !== undefined }).toEqual({ name, value, taken: true });
  }
  const novels = dtos.find((d) => d.dto.name === 'NovelQueryDto')!.dto;
  expect(ValidationPlan.of(novels)?.accept({ page: '3', has_audio: 'false' })).toEqual({ page: 3, page_size: 20, has_audio: false });
});
