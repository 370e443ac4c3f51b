import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../api/object.js";
import { apiGroup, KUBERNETES_PROFILE, metaGroup, ORCH_PROFILE } from "../api/profile.js";
import { renderTable, tableGroup, type TableInput } from "./table.js";

const NOW = Date.parse("2024-05-01T12:00:00Z");
const TABLE = { kind: "table", group: metaGroup(ORCH_PROFILE), version: "v1", includeObject: "Metadata" } as const;

function input(fields: Partial<TableInput> & Pick<TableInput, "objects">): TableInput {
  return { metaGroup: metaGroup(ORCH_PROFILE), representation: TABLE, listMeta: { resourceVersion: "7" }, now: NOW, ...fields };
}

const event = (apiVersion: string, fields: Record<string, unknown>): ApiObject => ({
  apiVersion,
  kind: "Event",
  metadata: { name: "web.1", creationTimestamp: "2024-05-01T11:00:00Z" },
  type: "Normal",
  reason: "Pulled",
  ...fields,
});
const names = (table: Record<string, unknown>): string[] => (table["columnDefinitions"] as { name: string }[]).map((column) => column.name);
const rows = (table: Record<string, unknown>): { cells: unknown[]; object?: Record<string, unknown> }[] =>
  table["rows"] as { cells: unknown[]; object?: Record<string, unknown> }[];

describe("renderTable()", () => {
  it("picks columns by group and kind: core and events-group Events read their own fields", () => {
    for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
      const meta = metaGroup(profile);
      const core = renderTable(
        input({ metaGroup: meta, apiVersion: "v1", kind: "Event", objects: [event("v1", { involvedObject: { kind: "Pod", name: "web" }, message: "core" })] }),
      );
      const eventsVersion = `${apiGroup(profile, "events")}/v1`;
      const grouped = renderTable(
        input({
          metaGroup: meta,
          apiVersion: eventsVersion,
          kind: "Event",
          objects: [event(eventsVersion, { regarding: { kind: "Pod", name: "web" }, note: "events group" })],
        }),
      );
      assert.deepEqual(names(core), names(grouped));
      assert.deepEqual(rows(core)[0]?.cells.slice(3, 7), ["pod/web", "", "", "core"]);
      assert.deepEqual(rows(grouped)[0]?.cells.slice(3, 7), ["pod/web", "", "", "events group"]);
    }
  });

  it("names a group by its prefix under the profile's API domain, other groups as they are", () => {
    assert.equal(tableGroup(`${apiGroup(KUBERNETES_PROFILE, "rbac.authorization")}/v1`, KUBERNETES_PROFILE), "rbac.authorization");
    assert.equal(tableGroup(`${apiGroup(ORCH_PROFILE, "flowcontrol.apiserver")}/v1`, ORCH_PROFILE), "flowcontrol.apiserver");
    assert.equal(tableGroup("apps/v1", ORCH_PROFILE), "apps");
    assert.equal(tableGroup("v1", ORCH_PROFILE), "");
    assert.equal(
      tableGroup(`${apiGroup(KUBERNETES_PROFILE, "networking")}/v1`, ORCH_PROFILE),
      apiGroup(KUBERNETES_PROFILE, "networking"),
      "another profile's group is not ours",
    );
  });

  it("uses the profile's key domain for well-known labels (node roles)", () => {
    for (const profile of [ORCH_PROFILE, KUBERNETES_PROFILE]) {
      const node: ApiObject = {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: "n", creationTimestamp: "2024-05-01T11:00:00Z", labels: { [`node-role.${profile.keyDomain}/worker`]: "" } },
      };
      assert.equal(rows(renderTable(input({ metaGroup: metaGroup(profile), apiVersion: "v1", kind: "Node", objects: [node] })))[0]?.cells[2], "worker");
    }
  });

  it("sends every cell with each column's priority; kubectl hides priority 1 without -o wide", () => {
    const table = renderTable(
      input({
        apiVersion: "v1",
        kind: "Pod",
        objects: [{ apiVersion: "v1", kind: "Pod", metadata: { name: "p", creationTimestamp: "2024-05-01T11:00:00Z" }, spec: { containers: [{ name: "c" }] } }],
      }),
    );
    const columns = table["columnDefinitions"] as { name: string; priority: number; format: string }[];
    assert.deepEqual(
      columns.filter((column) => column.priority === 1).map((column) => column.name),
      ["IP", "Node", "Nominated Node", "Readiness Gates"],
    );
    assert.equal(columns[0]?.format, "name");
    assert.deepEqual(rows(table)[0]?.cells, ["p", "0/1", "Pending", "0", "60m", "<none>", "<none>", "<none>", "<none>"]);
  });

  it("falls back to Name and Created At for kinds without columns, and without an apiVersion", () => {
    const limitRange: ApiObject = { apiVersion: "v1", kind: "LimitRange", metadata: { name: "limits", creationTimestamp: "2024-05-01T11:00:00Z" } };
    for (const fields of [{ apiVersion: "v1", kind: "LimitRange" }, { kind: "Pod" }, {}]) {
      const table = renderTable(input({ ...fields, objects: [limitRange] }));
      assert.deepEqual(names(table), ["Name", "Created At"]);
      assert.deepEqual(rows(table)[0]?.cells, ["limits", "2024-05-01T11:00:00Z"]);
    }
  });

  it("declares the columns of an empty list", () => {
    const table = renderTable(input({ apiVersion: "apps/v1", kind: "Deployment", objects: [] }));
    assert.deepEqual(names(table), ["Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"]);
    assert.deepEqual(table["rows"], []);
    assert.deepEqual(table["metadata"], { resourceVersion: "7" });
  });

  it("carries each row's object as PartialObjectMetadata, whole, or not at all (includeObject)", () => {
    const namespace: ApiObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "default", creationTimestamp: "2024-05-01T11:00:00Z" },
      status: { phase: "Active" },
    };
    const render = (includeObject: "None" | "Metadata" | "Object", version: "v1" | "v1beta1" = "v1") =>
      renderTable(
        input({
          apiVersion: "v1",
          kind: "Namespace",
          representation: { kind: "table", group: metaGroup(ORCH_PROFILE), version, includeObject },
          objects: [namespace],
        }),
      );
    assert.deepEqual(rows(render("Metadata"))[0]?.object, {
      kind: "PartialObjectMetadata",
      apiVersion: `${metaGroup(ORCH_PROFILE)}/v1`,
      metadata: namespace.metadata,
    });
    assert.equal(rows(render("Object"))[0]?.object, namespace);
    assert.equal(rows(render("None"))[0]?.object, undefined);
    const beta = render("Metadata", "v1beta1");
    assert.equal(beta["apiVersion"], `${metaGroup(ORCH_PROFILE)}/v1beta1`);
    assert.deepEqual(rows(beta)[0]?.cells, ["default", "Active", "60m"]);
  });
});
