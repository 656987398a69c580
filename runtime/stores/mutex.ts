/** A tiny FIFO async mutex: serialises transactions that share one database connection. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  /** True when nobody holds or waits for the lock. */
  get idle(): boolean {
    return this.pending === 0;
  }

  async run<T>(fn: () => T | Promise<T>): Promise<T> {
    const previous = this.tail;
    let unlock = (): void => {};
    this.tail = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    this.pending++;
    try {
      await previous;
      return await fn();
    } finally {
      this.pending--;
      unlock();
    }
  }
}
