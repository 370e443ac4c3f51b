import { createHash } from "node:crypto";

/**
 * Shuffle sharding: a flow's hash deals it `handSize` distinct queues out of `deckSize`. The hash
 * is read as a mixed-radix number (radixes deckSize, deckSize-1, …), each digit picking one of
 * the cards still in the deck, so two flows share their whole hand only rarely.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const hand: number[] = [];
  let rest = hash;
  const size = Math.min(handSize, deckSize);
  for (let index = 0; index < size; index++) {
    const remaining = deckSize - index;
    let card = rest % remaining;
    rest = Math.floor(rest / remaining);
    // The digit indexes the cards not yet dealt: step past each dealt card at or below it, lowest first.
    for (const dealt of [...hand].sort((left, right) => left - right)) if (card >= dealt) card++;
    hand.push(card);
  }
  return hand;
}

/** A 48-bit hash of a flow (schema name and distinguisher), exact in a double. */
export function flowHash(flowSchema: string, distinguisher: string): number {
  return createHash("sha256").update(flowSchema).update("\0").update(distinguisher).digest().readUIntBE(0, 6);
}
