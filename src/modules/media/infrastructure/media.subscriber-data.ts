import { Injectable } from '@nestjs/common';
import { SUBSCRIBER_KEY, SubscriberRows } from '../../../shared/persistence/subscriber-rows.js';
import type { ErasedCounts, ExportedSections } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** The stream URLs issued to a subscriber (the audit log), for export and erasure (DECISIONS 29). */
@Injectable()
export class MediaSubscriberData extends SubscriberRows {
  readonly name = 'stream URLs issued';
  protected readonly tables = ['stream_url_issues'];

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const issued = await this.rows(
      `SELECT novel_id, chapter_number, client_id, issued_at, expires_at FROM stream_url_issues WHERE ${SUBSCRIBER_KEY} ORDER BY issued_at, id`,
      tenant,
      subscriberId,
    );
    return { stream_urls: issued };
  }

  async erase(tenant: Tenant, subscriberId: string): Promise<Partial<ErasedCounts>> {
    return { stream_urls: await this.deleteRows('stream_url_issues', tenant, subscriberId) };
  }
}
