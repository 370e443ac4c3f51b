import type { ApiObject } from "../../api/object.js";
import type { ObjectFeed } from "../../authz/feed.js";
import { hooksOf } from "./hook.js";
import { HookIndex } from "./rules.js";

/**
 * The current hooks of one configuration kind, read from the watch cache's feed: configurations
 * by name, hooks in their listed order (kube's call order). Any change to the feed marks the
 * index stale; the next request rebuilds it once. So a configuration change applies to the next
 * request the server admits after its watch cache saw it, with no restart.
 */
export class HookSource {
  private index: HookIndex | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly feed: ObjectFeed,
    private readonly mutating: boolean,
  ) {
    this.unsubscribe = feed.subscribe(() => {
      this.index = undefined;
    });
  }

  current(): HookIndex {
    if (this.index !== undefined) return this.index;
    const configurations: ApiObject[] = [...this.feed.objects()].sort((a, b) => compare(a.metadata.name ?? "", b.metadata.name ?? ""));
    this.index = new HookIndex(configurations.flatMap((configuration) => hooksOf(configuration, this.mutating)));
    return this.index;
  }

  close(): void {
    this.unsubscribe();
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
