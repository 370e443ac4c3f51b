import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { legacyMoves, upgradeLegacyKeys } from "./legacy-layout.js";
import { MemoryStorage } from "./memory/memory-storage.js";

const builtins = [
  { group: "", plural: "configmaps" },
  { group: "", plural: "services" },
  { group: "apps", plural: "deployments" },
  { group: "networking.example.io", plural: "ingresses" },
  { group: "apiextensions.example.io", plural: "customresourcedefinitions" },
];

describe("legacy key layout upgrade", () => {
  it("maps each built-in resource's old prefix to kube's, and leaves group-keyed ones", () => {
    assert.deepEqual(legacyMoves(builtins), [
      { from: "/core/configmaps/", to: "/configmaps/" },
      { from: "/core/services/", to: "/services/specs/" },
      { from: "/apps/deployments/", to: "/deployments/" },
      { from: "/networking.example.io/ingresses/", to: "/ingress/" },
    ]);
  });

  it("moves every old key, keeps values, leaves other keys, and is idempotent after an interrupted move", async () => {
    const storage = new MemoryStorage();
    await storage.create("/core/configmaps/default/a", '{"a":1}');
    await storage.create("/core/services/default/web", '{"s":1}');
    await storage.create("/apps/deployments/ns1/d", '{"d":1}');
    await storage.create("/example.com/widgets/default/w", '{"w":1}');
    await storage.create("/ranges/serviceips/10.0.0.1", "x");
    // An earlier start copied this one and stopped before deleting the old key.
    await storage.create("/configmaps/default/b", '{"b":2}');
    await storage.create("/core/configmaps/default/b", '{"b":2}');

    assert.equal(await upgradeLegacyKeys(storage, builtins), 4);
    const { items } = await storage.list("/");
    assert.deepEqual(
      items.map((i) => [i.key, i.value]),
      [
        ["/configmaps/default/a", '{"a":1}'],
        ["/configmaps/default/b", '{"b":2}'],
        ["/deployments/ns1/d", '{"d":1}'],
        ["/example.com/widgets/default/w", '{"w":1}'],
        ["/ranges/serviceips/10.0.0.1", "x"],
        ["/services/specs/default/web", '{"s":1}'],
      ],
    );
    assert.equal(await upgradeLegacyKeys(storage, builtins), 0);
    await storage.close();
  });
});
