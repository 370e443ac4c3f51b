/**
 * The layer rule of docs/architecture.md, checked by `npm run lint:layers` (part of `npm test`).
 * Each folder of src/ may import only folders of lower layers (and itself). A violation prints the
 * importing file, the imported file and the rule's name.
 */
const LAYERS = [
  ["util"],
  ["api"],
  ["storage", "request", "apply"],
  ["codec"],
  ["auth"],
  ["authz"],
  ["admission"],
  ["registry"],
  ["controllers"],
  ["endpoints"],
  ["server"],
  ["cli"],
];

const rank = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index])));

/** One rule per folder: it must not import any folder of its own layer's peers or of a higher layer. */
const layerRules = [...rank].map(([folder, level]) => {
  const forbidden = [...rank].filter(([other, otherLevel]) => other !== folder && otherLevel >= level).map(([other]) => other);
  return {
    name: `layer-${folder}`,
    comment: `src/${folder} (layer ${level}) may import only lower layers; not ${forbidden.join(", ")}`,
    severity: "error",
    from: { path: `^src/${folder}/`, pathNot: "\\.test\\.ts$" },
    to: { path: `^src/(${forbidden.join("|")})/` },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "cacher-is-internal-to-registry",
      comment: "The watch cache is registry's own: everything else goes through registry/index.ts.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/registry/|\\.test\\.ts$" },
      to: { path: "^src/registry/cacher/" },
    },
    {
      name: "registry-through-its-face",
      comment: "Outside registry, import registry only through registry/index.ts (its public face).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(registry|testing)/|\\.test\\.ts$" },
      to: { path: "^src/registry/(?!index\\.ts$)" },
    },
    {
      name: "storage-backends-chosen-by-the-root",
      comment: "Only the composition root (cli) and storage itself name a backend; the rest use the Storage seam.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(storage|cli|testing)/|\\.test\\.ts$" },
      to: { path: "^src/storage/(memory|sqlite|etcd)/" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "tests-are-not-imported",
      severity: "error",
      from: { path: "^src/", pathNot: "\\.test\\.ts$" },
      to: { path: "\\.test\\.ts$" },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
  },
};
