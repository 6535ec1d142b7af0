/**
 * Callbacks a module registers with another at start, so the other can tell it something
 * happened without depending on it (a removed novel, changed features). They run one after
 * another, in registration order, inside the caller's transaction when it has one: they
 * commit or roll back with it.
 */
export class Listeners<Args extends unknown[]> {
  private readonly listeners: ((...args: Args) => Promise<void>)[] = [];

  add(listener: (...args: Args) => Promise<void>): void {
    this.listeners.push(listener);
  }

  async notify(...args: Args): Promise<void> {
    for (const listener of this.listeners) await listener(...args);
  }
}
