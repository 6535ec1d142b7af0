import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { HostResolver } from '../domain/host-resolver.js';

/** The system resolver, as a connection would use it (hosts file included). */
@Injectable()
export class DnsHostResolver extends HostResolver {
  async addressesOf(hostname: string): Promise<string[]> {
    const addresses = await lookup(hostname, { all: true, verbatim: true });
    return addresses.map((entry) => entry.address);
  }
}
