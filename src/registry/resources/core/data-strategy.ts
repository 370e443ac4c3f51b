import { CLIENT_SECRET_TYPES } from "../../../api/profile.js";
import type { FieldError } from "../../../api/errors.js";
import { isPlainObject, type ApiObject } from "../../../api/object.js";
import type { Strategy } from "../../definition.js";

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_DATA_BYTES = 1024 * 1024;

function validateKeys(map: unknown, field: string, errors: FieldError[]): string[] {
  if (map === undefined || map === null) return [];
  if (!isPlainObject(map)) {
    errors.push({ type: "FieldValueInvalid", field, message: "must be a map of string keys to string values" });
    return [];
  }
  for (const [key, value] of Object.entries(map)) {
    if (!CONFIG_KEY.test(key) || key.length > 253) {
      errors.push({
        type: "FieldValueInvalid",
        field: `${field}[${key}]`,
        message: `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      });
    }
    if (typeof value !== "string") errors.push({ type: "FieldValueInvalid", field: `${field}[${key}]`, message: "must be a string" });
  }
  return Object.keys(map);
}

/** `immutable: true` objects keep their data: any change of data or the flag is forbidden. */
function validateImmutable(object: ApiObject, old: ApiObject, fields: readonly string[], errors: FieldError[]): void {
  if (old["immutable"] !== true) return;
  if (object["immutable"] !== true)
    errors.push({ type: "FieldValueForbidden", field: "immutable", message: "Forbidden: field is immutable when `immutable` is set" });
  for (const field of fields) {
    if (JSON.stringify(object[field] ?? null) !== JSON.stringify(old[field] ?? null)) {
      errors.push({ type: "FieldValueForbidden", field, message: "Forbidden: field is immutable when `immutable` is set" });
    }
  }
}

function sizeOf(map: unknown): number {
  if (!isPlainObject(map)) return 0;
  let total = 0;
  for (const [key, value] of Object.entries(map)) total += key.length + (typeof value === "string" ? value.length : 0);
  return total;
}

function validateConfigMap(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const dataKeys = validateKeys(object["data"], "data", errors);
  const binaryKeys = validateKeys(object["binaryData"], "binaryData", errors);
  for (const key of binaryKeys) {
    if (dataKeys.includes(key))
      errors.push({ type: "FieldValueInvalid", field: `data[${key}]`, message: `Invalid value: "${key}": duplicate of key present in binaryData` });
    const value = isPlainObject(object["binaryData"]) ? object["binaryData"][key] : undefined;
    if (typeof value === "string" && !BASE64.test(value))
      errors.push({ type: "FieldValueInvalid", field: `binaryData[${key}]`, message: "Invalid value: must be base64 encoded" });
  }
  if (sizeOf(object["data"]) + sizeOf(object["binaryData"]) > MAX_DATA_BYTES) {
    errors.push({ type: "FieldValueTooLong", field: "", message: `Too long: must have at most ${MAX_DATA_BYTES} bytes` });
  }
  return errors;
}

export const CONFIG_MAP_STRATEGY: Partial<Strategy> = {
  validate: validateConfigMap,
  validateUpdate(object, old) {
    const errors = validateConfigMap(object);
    validateImmutable(object, old, ["data", "binaryData"], errors);
    return errors;
  },
};

/** Folds `stringData` into base64 `data` (stringData wins), as kube does on every write. */
function foldStringData(object: ApiObject): void {
  const stringData = object["stringData"];
  if (isPlainObject(stringData)) {
    const data: Record<string, unknown> = isPlainObject(object["data"]) ? { ...object["data"] } : {};
    for (const [key, value] of Object.entries(stringData)) {
      data[key] = typeof value === "string" ? Buffer.from(value, "utf8").toString("base64") : value;
    }
    object["data"] = data;
  }
  delete object["stringData"];
  if (object["type"] === undefined || object["type"] === "") object["type"] = "Opaque";
}

function validateSecret(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  validateKeys(object["data"], "data", errors);
  const data = object["data"];
  if (isPlainObject(data)) {
    for (const [key, value] of Object.entries(data)) {
      if (typeof value === "string" && !BASE64.test(value))
        errors.push({ type: "FieldValueInvalid", field: `data[${key}]`, message: "Invalid value: illegal base64 data" });
    }
  }
  if (sizeOf(data) > MAX_DATA_BYTES) errors.push({ type: "FieldValueTooLong", field: "data", message: `Too long: must have at most ${MAX_DATA_BYTES} bytes` });
  validateSecretType(object, errors);
  return errors;
}

const REQUIRED = "Required value";

/** Go's `json.Unmarshal` error for a document read into `map[string]interface{}` (the common cases), or undefined when it parses. */
function goJsonMapError(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const trimmed = text.trimStart();
    const first = trimmed[0];
    if (first === undefined) return "unexpected end of JSON input";
    if (!/[{["\-0-9tfn]/.test(first)) return `invalid character '${first}' looking for beginning of value`;
    const literal = first === "t" ? "true" : first === "f" ? "false" : first === "n" ? "null" : undefined;
    if (literal !== undefined) {
      for (let index = 1; index < literal.length; index++) {
        const char = trimmed[index];
        if (char === undefined) return "unexpected end of JSON input";
        if (char !== literal[index]) return `invalid character '${char}' in literal ${literal} (expecting '${literal[index]}')`;
      }
      const after = trimmed.slice(literal.length).trimStart()[0];
      if (after !== undefined) return `invalid character '${after}' after top-level value`;
    }
    // Other syntax errors: Go names the offending character and its context; only the common cases above are spelled as Go does.
    return "unexpected end of JSON input";
  }
  if (parsed === null || isPlainObject(parsed)) return undefined;
  const kind = Array.isArray(parsed) ? "array" : typeof parsed === "boolean" ? "bool" : typeof parsed;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/**
 * kube's ValidateSecret rules by `type`: the keys a typed Secret must carry (`tls.crt` and
 * `tls.key`; `.dockercfg` / `.dockerconfigjson` holding a JSON object; `username` or `password`;
 * `ssh-privatekey`) and a token Secret's account annotation (`<keyDomain>/service-account.name`,
 * the domain of its `<keyDomain>/service-account-token` type).
 */
function validateSecretType(object: ApiObject, errors: FieldError[]): void {
  const type = typeof object["type"] === "string" ? object["type"] : "";
  const data = isPlainObject(object["data"]) ? object["data"] : {};
  const has = (key: string): boolean => Object.hasOwn(data, key);
  const requireKey = (key: string): void => {
    errors.push({ type: "FieldValueRequired", field: `data[${key}]`, message: REQUIRED });
  };
  const requireJson = (key: string): void => {
    if (!has(key)) {
      requireKey(key);
      return;
    }
    const value = data[key];
    const problem = goJsonMapError(typeof value === "string" ? Buffer.from(value, "base64").toString("utf8") : "");
    if (problem !== undefined)
      errors.push({ type: "FieldValueInvalid", field: `data[${key}]`, message: `Invalid value: "<secret contents redacted>": ${problem}` });
  };
  const tokenType = /^([^/]+)\/service-account-token$/.exec(type);
  if (tokenType !== null) {
    const annotation = `${tokenType[1]}/service-account.name`;
    const name = object.metadata.annotations?.[annotation];
    if (typeof name !== "string" || name === "") errors.push({ type: "FieldValueRequired", field: `metadata.annotations[${annotation}]`, message: REQUIRED });
    return;
  }
  switch (type) {
    case CLIENT_SECRET_TYPES.dockercfg:
      requireJson(".dockercfg");
      return;
    case CLIENT_SECRET_TYPES.dockerConfigJson:
      requireJson(".dockerconfigjson");
      return;
    case CLIENT_SECRET_TYPES.basicAuth:
      if (!has("username") && !has("password")) {
        requireKey("username");
        requireKey("password");
      }
      return;
    case CLIENT_SECRET_TYPES.sshAuth:
      if (typeof data["ssh-privatekey"] !== "string" || data["ssh-privatekey"] === "") requireKey("ssh-privatekey");
      return;
    case CLIENT_SECRET_TYPES.tls:
      if (!has("tls.crt")) requireKey("tls.crt");
      if (!has("tls.key")) requireKey("tls.key");
      return;
    default:
      return;
  }
}

export const SECRET_STRATEGY: Partial<Strategy> = {
  prepareForCreate: foldStringData,
  prepareForUpdate: foldStringData,
  validate: validateSecret,
  validateUpdate(object, old) {
    const errors = validateSecret(object);
    if (object["type"] !== old["type"])
      errors.push({ type: "FieldValueInvalid", field: "type", message: `Invalid value: "${String(object["type"])}": field is immutable` });
    validateImmutable(object, old, ["data"], errors);
    return errors;
  },
};
