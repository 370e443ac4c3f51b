import type { FieldError } from "../../errors.js";
import { isPlainObject } from "../../object.js";
import { quantityValue } from "../../quantity.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { childPath, forbidden, indexPath, invalidValue, required } from "../field-path.js";
import { fieldRefErrors } from "./containers.js";
import { localDescendingPathErrors } from "./pod-spec.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube 1.30's checks of volume sources (validateVolumeSource's per-source functions) and of
 * volume mount sub-paths (ValidateVolumeMounts), with kube's field paths: several of them name the
 * enclosing field rather than the item (`downwardAPI.path`, `projected.path`,
 * `volumeMounts.subPath`), as kube's do.
 */

const FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive";
const VOLUME_FIELD_PATHS = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];

/** A volume's sources, in the order kube 1.30's validateVolumeSource checks them (which names the second one given). */
export const VOLUME_SOURCES = [
  "awsElasticBlockStore",
  "azureDisk",
  "azureFile",
  "cephfs",
  "cinder",
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "fc",
  "flexVolume",
  "flocker",
  "gcePersistentDisk",
  "gitRepo",
  "glusterfs",
  "hostPath",
  "iscsi",
  "nfs",
  "persistentVolumeClaim",
  "photonPersistentDisk",
  "portworxVolume",
  "projected",
  "quobyte",
  "rbd",
  "scaleIO",
  "secret",
  "storageos",
  "vsphereVolume",
];

/** kube's SetDefaults_*VolumeSource: files are written 0644 unless a mode is given. */
const defaultFileMode: DefinitionDefaulter = (source) => {
  if (source["defaultMode"] === undefined || source["defaultMode"] === null) source["defaultMode"] = 0o644;
};

/** kube's SetDefaults_Volume: a volume that names no source (`- name: cache`) is an empty directory. */
const defaultVolume: DefinitionDefaulter = (volume) => {
  if (VOLUME_SOURCES.every((source) => volume[source] === undefined || volume[source] === null)) volume["emptyDir"] = {};
};

export const VOLUME_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "core.v1.Volume": defaultVolume,
  "core.v1.SecretVolumeSource": defaultFileMode,
  "core.v1.ConfigMapVolumeSource": defaultFileMode,
  "core.v1.DownwardAPIVolumeSource": defaultFileMode,
  "core.v1.ProjectedVolumeSource": defaultFileMode,
  // kube's SetDefaults_ServiceAccountTokenProjection: an hour.
  "core.v1.ServiceAccountTokenProjection": (projection) => {
    if (projection["expirationSeconds"] === undefined || projection["expirationSeconds"] === null || projection["expirationSeconds"] === 0)
      projection["expirationSeconds"] = 3600;
  },
  // kube's SetDefaults_HostPathVolumeSource: an unset type is the empty one (no check on the node).
  "core.v1.HostPathVolumeSource": (source) => {
    source["type"] ??= "";
  },
};

function modeErrors(value: unknown, path: string): FieldError[] {
  return typeof value === "number" && (value < 0 || value > 0o777) ? [invalidValue(path, value, FILE_MODE)] : [];
}

function pathNoBackstepsErrors(value: string, path: string): FieldError[] {
  return value.split("/").includes("..") ? [invalidValue(path, value, "must not contain '..'")] : [];
}

/** kube's ValidateLocalNonReservedPath: relative, no `..` element, not starting with `..`. */
function localNonReservedPathErrors(value: string, path: string): FieldError[] {
  const errors = localDescendingPathErrors(value, path);
  if (value.startsWith("..") && !value.startsWith("../")) errors.push(invalidValue(path, value, "must not start with '..'"));
  return errors;
}

/** kube's validateKeyToPath (an empty key or path is the schema's Required). */
function keyToPathErrors(item: unknown, at: string): FieldError[] {
  if (!isPlainObject(item)) return [];
  return [...localNonReservedPathErrors(stringAt(item, "path") ?? "", childPath(at, "path")), ...modeErrors(item["mode"], childPath(at, "mode"))];
}

function itemsErrors(source: Record<string, unknown>, at: string): FieldError[] {
  return listAt(source, "items").flatMap((item, index) => keyToPathErrors(item, indexPath(childPath(at, "items"), index)));
}

/**
 * kube's validateDownwardAPIVolumeFile; `at` is the source's path (kube reports files there, not by
 * index). A missing or empty `path` is left to the schema's Required at `items[i].path` (kube says
 * `downwardAPI.path`): reporting it here too printed the one mistake twice.
 */
function downwardFileErrors(file: unknown, at: string): FieldError[] {
  if (!isPlainObject(file)) return [];
  const path = stringAt(file, "path") ?? "";
  const errors = localNonReservedPathErrors(path, childPath(at, "path"));
  const fieldRef = recordAt(file, "fieldRef");
  if (fieldRef !== undefined) {
    errors.push(...fieldRefErrors(fieldRef, childPath(at, "fieldRef"), VOLUME_FIELD_PATHS));
    if (recordAt(file, "resourceFieldRef") !== undefined)
      errors.push(invalidValue(at, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
  } else if (recordAt(file, "resourceFieldRef") === undefined) {
    errors.push(required(at, "one of fieldRef and resourceFieldRef is required"));
  }
  errors.push(...modeErrors(file["mode"], childPath(at, "mode")));
  return errors;
}

/** A projected secret or configMap: a name, and its items as validateKeyToPath checks them. */
function projectedReferenceErrors(
  reference: Record<string, unknown>,
  at: string,
  errors: FieldError[],
  paths: Map<string, unknown>,
  projectedAt: string,
): void {
  if ((stringAt(reference, "name") ?? "") === "") errors.push(required(childPath(at, "name")));
  const items = listAt(reference, "items");
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    for (const error of keyToPathErrors(item, indexPath(childPath(at, "items"), index))) errors.push(error);
    claimPath(stringAt(item, "path") ?? "", stringAt(reference, "name") ?? "", errors, paths, projectedAt);
  }
}

function claimPath(path: string, shown: unknown, errors: FieldError[], paths: Map<string, unknown>, projectedAt: string): void {
  if (path === "") return;
  if (paths.has(path)) errors.push(invalidValue(projectedAt, shown, "conflicting duplicate paths"));
  paths.set(path, shown);
}

/**
 * kube's validateProjectionSources: one source per entry, unique paths, token lifetimes. Every
 * pod has one (the service-account token volume), so this is written as plain loops.
 */
function projectedErrors(projected: Record<string, unknown>, at: string): FieldError[] {
  const errors = modeErrors(projected["defaultMode"], childPath(at, "defaultMode"));
  const paths = new Map<string, unknown>();
  const sources = listAt(projected, "sources");
  for (let index = 0; index < sources.length; index++) {
    const source = sources[index];
    if (!isPlainObject(source)) continue;
    const sourceAt = indexPath(childPath(at, "sources"), index);
    let kinds = 0;
    const secret = source["secret"];
    if (isPlainObject(secret)) {
      kinds++;
      projectedReferenceErrors(secret, childPath(sourceAt, "secret"), errors, paths, at);
    }
    const configMap = source["configMap"];
    if (isPlainObject(configMap)) {
      kinds++;
      projectedReferenceErrors(configMap, childPath(sourceAt, "configMap"), errors, paths, at);
    }
    const downward = source["downwardAPI"];
    if (isPlainObject(downward)) {
      kinds++;
      const items = listAt(downward, "items");
      for (let item = 0; item < items.length; item++) {
        const file = items[item];
        for (const error of downwardFileErrors(file, childPath(sourceAt, "downwardAPI"))) errors.push(error);
        const path = stringAt(file, "path") ?? "";
        claimPath(path, path, errors, paths, at);
      }
    }
    const token = source["serviceAccountToken"];
    if (isPlainObject(token)) {
      kinds++;
      const seconds = token["expirationSeconds"];
      if (typeof seconds === "number" && (seconds < 600 || seconds > 2 ** 32)) {
        const secondsAt = childPath(childPath(sourceAt, "serviceAccountToken"), "expirationSeconds");
        if (seconds < 600) errors.push(invalidValue(secondsAt, seconds, "may not specify a duration less than 10 minutes"));
        else errors.push(invalidValue(secondsAt, seconds, "may not specify a duration larger than 2^32 seconds"));
      }
      const path = stringAt(token, "path") ?? "";
      if (path !== "") for (const error of localNonReservedPathErrors(path, childPath(at, "path"))) errors.push(error);
    }
    if (isPlainObject(source["clusterTrustBundle"])) kinds++;
    if (kinds > 1) errors.push(forbidden(sourceAt, "may not specify more than 1 volume type per source"));
  }
  return errors;
}

/** The source-specific checks of one volume (`at` is the volume's path), the source count aside. */
export function volumeSourceErrors(volume: Record<string, unknown>, at: string): FieldError[] {
  const projected = volume["projected"];
  if (isPlainObject(projected)) return projectedErrors(projected, childPath(at, "projected"));
  const errors: FieldError[] = [];
  const emptyDir = recordAt(volume, "emptyDir");
  if (emptyDir !== undefined) {
    const sizeLimit = quantityValue(emptyDir["sizeLimit"]);
    if (sizeLimit !== undefined && sizeLimit < 0)
      errors.push(forbidden(childPath(childPath(at, "emptyDir"), "sizeLimit"), "SizeLimit field must be a valid resource quantity"));
    return errors;
  }
  const hostPath = stringAt(recordAt(volume, "hostPath"), "path") ?? "";
  if (hostPath !== "") errors.push(...pathNoBackstepsErrors(hostPath, childPath(childPath(at, "hostPath"), "path")));
  const secret = recordAt(volume, "secret");
  if (secret !== undefined) {
    const secretAt = childPath(at, "secret");
    if ((stringAt(secret, "secretName") ?? "") === "") errors.push(required(childPath(secretAt, "secretName")));
    errors.push(...modeErrors(secret["defaultMode"], childPath(secretAt, "defaultMode")), ...itemsErrors(secret, secretAt));
  }
  const configMap = recordAt(volume, "configMap");
  if (configMap !== undefined) {
    const configMapAt = childPath(at, "configMap");
    if ((stringAt(configMap, "name") ?? "") === "") errors.push(required(childPath(configMapAt, "name")));
    errors.push(...modeErrors(configMap["defaultMode"], childPath(configMapAt, "defaultMode")), ...itemsErrors(configMap, configMapAt));
  }
  const downward = recordAt(volume, "downwardAPI");
  if (downward !== undefined) {
    const downwardAt = childPath(at, "downwardAPI");
    errors.push(...modeErrors(downward["defaultMode"], childPath(downwardAt, "defaultMode")));
    for (const file of listAt(downward, "items")) errors.push(...downwardFileErrors(file, downwardAt));
  }
  const nfs = recordAt(volume, "nfs");
  if (nfs !== undefined) {
    const nfsPath = stringAt(nfs, "path") ?? "";
    if (!nfsPath.startsWith("/")) errors.push(invalidValue(childPath(childPath(at, "nfs"), "path"), nfsPath, "must be an absolute path"));
  }
  return errors;
}

/**
 * kube's sub-path and propagation checks of a container's mounts (ValidateVolumeMounts), reported
 * at `volumeMounts.subPath` etc. without the index, as kube does.
 */
export function volumeMountPathErrors(container: Record<string, unknown>, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const mountsAt = childPath(at, "volumeMounts");
  const privileged = recordAt(container, "securityContext")?.["privileged"] === true;
  listAt(container, "volumeMounts").forEach((mount, index) => {
    if (!isPlainObject(mount)) return;
    const subPath = stringAt(mount, "subPath") ?? "";
    const subPathExpr = stringAt(mount, "subPathExpr") ?? "";
    if (subPath !== "") errors.push(...localDescendingPathErrors(subPath, childPath(mountsAt, "subPath")));
    if (subPathExpr !== "") {
      if (subPath !== "")
        errors.push(invalidValue(childPath(indexPath(mountsAt, index), "subPathExpr"), subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      errors.push(...localDescendingPathErrors(subPathExpr, childPath(mountsAt, "subPathExpr")));
    }
    if (mount["mountPropagation"] === "Bidirectional" && !privileged)
      errors.push(forbidden(childPath(mountsAt, "mountPropagation"), "Bidirectional mount propagation is available only to privileged containers"));
  });
  return errors;
}
