import type { ApiResponse, RequestContext } from "../request/context.js";

/** A handler whose answers the test releases (200 "ok"), counting the requests that reached it. */
export function heldHandler(): { handler: (context: RequestContext) => Promise<ApiResponse>; release(): void; reached: () => number } {
  let reached = 0;
  const waiting: (() => void)[] = [];
  return {
    handler: async () => {
      reached++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { status: 200, headers: {}, body: "ok" };
    },
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
    reached: () => reached,
  };
}
