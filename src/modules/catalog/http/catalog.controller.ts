import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { CatalogService } from '../application/catalog.service.js';
import { CategoryListDto, NovelPageDto, NovelQueryDto } from './catalog.dto.js';
import { categoryListJson, novelPageJson } from './catalog.json.js';

@ApiTags('Catalog')
@Controller(readingPaths())
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get('categories')
  @RequireScopes()
  @ApiOperation({ summary: 'Category list, ordered by sort_order', description: 'Any valid token.' })
  @ApiOkResponse({ type: CategoryListDto })
  @Header('content-type', 'application/json; charset=utf-8')
  async categories(@CurrentTenant() tenant: Tenant): Promise<string> {
    return categoryListJson(await this.catalog.categories(tenant.environment));
  }

  @Get('novels')
  @RequireScopes('textapp:catalog:read', 'audioapp:audio:read')
  @ApiOperation({ summary: 'Catalog page', description: 'Published novels ordered by title, then id. Removed novels never appear.' })
  @ApiOkResponse({ type: NovelPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: a filter or paging parameter is malformed or out of range, or unknown' })
  @Header('content-type', 'application/json; charset=utf-8')
  async novels(@CurrentTenant() tenant: Tenant, @Query() query: NovelQueryDto): Promise<string> {
    const page = await this.catalog.findNovels(tenant.environment, {
      categoryId: query.category_id,
      tag: query.tag,
      hasAudio: query.has_audio,
      page: query.page,
      pageSize: query.page_size,
    });
    return novelPageJson(page);
  }
}
