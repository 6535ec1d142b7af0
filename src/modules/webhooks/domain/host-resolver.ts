/** The addresses a host name resolves to (DNS in production; replaceable in tests). */
export abstract class HostResolver {
  /** Every address of the host; rejects when the name does not resolve. */
  abstract addressesOf(hostname: string): Promise<string[]>;
}
