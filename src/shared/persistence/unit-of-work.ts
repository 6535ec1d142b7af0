/**
 * Runs work in one database transaction. Repositories called inside `run` join the
 * transaction without being handed anything, so domain services can span several
 * repositories (and several modules) atomically without knowing how it is done.
 */
export abstract class UnitOfWork {
  abstract run<T>(work: () => Promise<T>): Promise<T>;
}
