import { Injectable } from '@nestjs/common';

/** A check a module adds to readiness: the reason this replica must not take traffic, or undefined. */
export type ReadinessCheck = () => Promise<string | undefined>;

/**
 * What `/health/ready` asks beside the database: each module that can find this replica
 * unfit to serve (a SERVER_SECRET the database no longer goes with, ADR 0003) adds a check,
 * run at every probe, and the reasons it gives make the replica not ready.
 */
@Injectable()
export class ReadinessChecks {
  private readonly checks: ReadinessCheck[] = [];

  add(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  async reasons(): Promise<string[]> {
    const answers = await Promise.all(this.checks.map((check) => check()));
    return answers.filter((reason): reason is string => reason !== undefined);
  }
}
