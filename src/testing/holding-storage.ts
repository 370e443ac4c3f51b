import { MemoryStorage } from "../storage/index.js";

/**
 * A memory store for tests that need a write caught in the middle: a create whose key contains
 * `marker` waits until `release()`; other keys go through. `reached` settles at the first held
 * create, `reachedCount` counts them all.
 */
export class HoldingStorage extends MemoryStorage {
  private readonly waiting: (() => void)[] = [];
  private onReached: () => void = () => {};
  readonly reached = new Promise<void>((resolve) => {
    this.onReached = resolve;
  });
  reachedCount = 0;

  constructor(private readonly marker: string) {
    super();
  }

  override async create(key: string, value: string): Promise<number> {
    if (key.includes(this.marker)) {
      this.reachedCount++;
      this.onReached();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return super.create(key, value);
  }

  /** Lets every held create go on. */
  release(): void {
    for (const resume of this.waiting.splice(0)) resume();
  }
}
