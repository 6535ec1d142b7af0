import { Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

// The schema is made by the migrations; these mappings mirror them exactly (names included).

@Entity('test_clocks')
@Index('test_clocks_partner', ['partnerId', 'createdAt'])
export class TestClockEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'partner_id' })
  @ForeignKey('PartnerEntity', 'id', { name: 'test_clocks_partner_id_fkey' })
  partnerId: string;
  @Column('text', { nullable: true }) name: string | null;
  @Column('timestamptz', { name: 'frozen_time' }) frozenTime: Date;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
}

@Entity('test_clock_subscribers')
@Index('test_clock_subscribers_clock', ['clockId', 'attachedAt'])
export class TestClockSubscriberEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @Column('uuid', { name: 'clock_id' })
  @ForeignKey(() => TestClockEntity, 'id', { name: 'test_clock_subscribers_clock_id_fkey', onDelete: 'CASCADE' })
  clockId: string;
  @Column('timestamptz', { name: 'attached_at', default: () => 'now()' }) attachedAt: Date;
}

export const TEST_CLOCK_ENTITIES = [TestClockEntity, TestClockSubscriberEntity];
