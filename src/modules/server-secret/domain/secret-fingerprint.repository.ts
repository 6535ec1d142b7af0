/** Where the database records which root secret it is sealed and hashed with (ADR 0003). */
export abstract class SecretFingerprintRepository {
  /** The recorded fingerprint, or undefined before the first start that records one. */
  abstract read(): Promise<string | undefined>;
  /** Records `fingerprint` unless one is already recorded; answers the one recorded. */
  abstract recordIfAbsent(fingerprint: string): Promise<string>;
  /** Inside the rotation's transaction: locks the record, to replace it after the re-sealing. */
  abstract lock(): Promise<string | undefined>;
  /** Records `fingerprint` and tells every replica at commit. */
  abstract replace(fingerprint: string): Promise<void>;
  /** Calls `changed` with the new fingerprint when a rotation commits on any replica ('' after a lost connection: read again). */
  abstract watch(changed: (fingerprint: string) => void): Promise<void>;
}
