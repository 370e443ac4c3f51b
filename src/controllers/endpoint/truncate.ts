/** The spec's Limits row: at most 1,000 addresses in one Endpoints object. */
export const MAX_ENDPOINT_ADDRESSES = 1000;

export interface Subset<T> {
  readonly addresses: readonly T[];
  readonly notReadyAddresses: readonly T[];
}

/** Splits `budget` over `counts` in proportion (rounded down), the remainder to the first lists with room. */
function share(counts: readonly number[], budget: number): number[] {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total <= budget) return [...counts];
  const out = counts.map((count) => Math.floor((count * budget) / total));
  let left = budget - out.reduce((sum, count) => sum + count, 0);
  for (let index = 0; left > 0 && index < out.length; index++) {
    const room = (counts[index] ?? 0) - (out[index] ?? 0);
    const extra = Math.min(room, left);
    out[index] = (out[index] ?? 0) + extra;
    left -= extra;
  }
  return out;
}

/**
 * Cuts subsets to `max` addresses in all, as kube's endpoint controller does: ready addresses
 * first, each kind spread over the subsets in proportion to their size. Returns the subsets and
 * whether anything was cut (the caller then sets the over-capacity annotation).
 */
export function truncateSubsets<T, S extends Subset<T>>(subsets: readonly S[], max = MAX_ENDPOINT_ADDRESSES): { subsets: S[]; truncated: boolean } {
  const ready = subsets.map((subset) => subset.addresses.length);
  const notReady = subsets.map((subset) => subset.notReadyAddresses.length);
  const total = [...ready, ...notReady].reduce((sum, count) => sum + count, 0);
  if (total <= max) return { subsets: [...subsets], truncated: false };
  const readyKept = share(ready, max);
  const notReadyKept = share(notReady, max - readyKept.reduce((sum, count) => sum + count, 0));
  const cut = subsets
    .map((subset, index) => ({
      ...subset,
      addresses: subset.addresses.slice(0, readyKept[index] ?? 0),
      notReadyAddresses: subset.notReadyAddresses.slice(0, notReadyKept[index] ?? 0),
    }))
    .filter((subset) => subset.addresses.length + subset.notReadyAddresses.length > 0);
  return { subsets: cut, truncated: true };
}
