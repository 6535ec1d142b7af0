import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/typeorm-unit-of-work.js';
import { StreamAuditRepository, type StreamIssued } from '../domain/stream-audit.repository.js';
import { StreamUrlIssueEntity } from './media.entities.js';

@Injectable()
export class TypeOrmStreamAuditRepository extends StreamAuditRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async append(entry: StreamIssued): Promise<void> {
    await this.db.manager.getRepository(StreamUrlIssueEntity).insert({ ...entry });
  }
}
