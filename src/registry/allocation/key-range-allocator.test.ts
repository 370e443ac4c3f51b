import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStorage } from "../../storage/index.js";
import { parseCidr } from "../../util/cidr.js";
import { staticBand } from "../resources/core/service-allocations.js";
import { KeyRangeAllocator } from "./key-range-allocator.js";

describe("KeyRangeAllocator's static band (kube's ServiceIPStaticSubrange, ServiceNodePortStaticSubrange)", () => {
  it("kube's band sizes: 16 addresses of a /24, 256 at most; 86 ports of 30000-32767; none in a tiny range", () => {
    assert.equal(staticBand(256, 16, 256, 16), 16);
    assert.equal(staticBand(65_536, 16, 256, 16), 256);
    assert.equal(staticBand(2768, 16, 128, 32), 86);
    assert.equal(staticBand(8, 16, 256, 16), 0);
  });

  it("hands out the dynamic band first and the static band only once the dynamic one is full", async () => {
    const range = parseCidr("10.0.0.0/27");
    const allocator = new KeyRangeAllocator(new MemoryStorage(), {
      prefix: "/ranges/test/",
      size: range.size,
      valueAt: (index) => range.addressAt(index),
      indexOf: (value) => range.indexOf(value),
      reserved: (index) => index === 0 || index === range.size - 1,
      dynamicFrom: 1 + staticBand(range.size, 16, 256, 16),
    });
    const got: string[] = [];
    for (let uid = 0; uid < 30; uid++) got.push((await allocator.claimAny({ uid: `u${uid}`, name: `s${uid}` })) ?? "none");
    const last = (ip: string): number => Number(ip.split(".")[3]);
    // A /27: .1-.16 static, .17-.30 dynamic (14 addresses), .31 broadcast.
    assert.ok(
      got.slice(0, 14).every((ip) => last(ip) >= 17 && last(ip) <= 30),
      got.slice(0, 14).join(" "),
    );
    assert.ok(
      got.slice(14).every((ip) => last(ip) >= 1 && last(ip) <= 16),
      got.slice(14).join(" "),
    );
    assert.equal(new Set(got).size, 30);
    assert.equal(await allocator.claimAny({ uid: "full", name: "full" }), undefined);
  });
});
