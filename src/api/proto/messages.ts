/**
 * Protobuf messages as data: each message's fields with their wire numbers, in a compact text form.
 *
 * A data file maps message ids (`<package>.<version>.<Message>`, `meta.v1.ObjectMeta`) to one line of
 * space-separated fields, `name=number` for scalars (also repeated scalars and maps of scalars) and
 * `name=number:messageId` for a message-typed field, a repeated message or a map whose values are
 * messages (the id is the element's or value's message). Names are the proto field names, which
 * are the JSON names except where a Go struct is embedded (`volumeSource`) and a few JSON-Schema
 * spellings (see `numbering.ts`).
 */
export type ProtoMessages = Readonly<Record<string, string>>;

/** One field of a message: its wire number and, for message-typed fields, the (element/value) message id. */
export interface ProtoMessageField {
  readonly number: number;
  readonly message?: string;
}

/** Messages by id, each with its fields by proto name (in declaration order). */
export type ParsedMessages = ReadonlyMap<string, ReadonlyMap<string, ProtoMessageField>>;

/**
 * Message ids whose JSON form is a scalar (or, for FieldsV1 and RawExtension, opaque JSON) and whose
 * wire form is handled as a whole: they have no entry of their own and a walk stops at them.
 */
export const LEAF_MESSAGES: ReadonlySet<string> = new Set([
  "meta.v1.Time",
  "meta.v1.MicroTime",
  "meta.v1.Duration",
  "meta.v1.FieldsV1",
  "resource.Quantity",
  "intstr.IntOrString",
  "runtime.RawExtension",
]);

const FIELD = /^([A-Za-z_$][A-Za-z0-9_$]*)=([0-9]+)(?::([A-Za-z0-9_.]+))?$/;

/**
 * Parses data files into one map. Throws on a malformed field or on a message id given twice
 * (across files too); semantic checks are `validateMessages`'s.
 */
export function parseMessages(files: readonly ProtoMessages[]): Map<string, Map<string, ProtoMessageField>> {
  const out = new Map<string, Map<string, ProtoMessageField>>();
  for (const file of files) {
    for (const [id, text] of Object.entries(file)) {
      if (out.has(id)) throw new Error(`message ${id} is declared twice`);
      const fields = new Map<string, ProtoMessageField>();
      for (const token of text.split(/\s+/).filter((part) => part !== "")) {
        const match = FIELD.exec(token);
        if (match === null) throw new Error(`message ${id}: malformed field "${token}"`);
        const [, name = "", number = "", message] = match;
        if (fields.has(name)) throw new Error(`message ${id}: field ${name} is declared twice`);
        fields.set(name, message === undefined ? { number: Number(number) } : { number: Number(number), message });
      }
      out.set(id, fields);
    }
  }
  return out;
}

/**
 * Problems of parsed messages, one line each (empty when sound): numbers must be positive and
 * unique within a message, and every referenced message must exist unless it is a leaf id.
 * Names are unique by construction (`parseMessages` refuses duplicates).
 */
export function validateMessages(messages: ParsedMessages): string[] {
  const problems: string[] = [];
  for (const [id, fields] of messages) {
    const byNumber = new Map<number, string>();
    for (const [name, field] of fields) {
      if (!Number.isSafeInteger(field.number) || field.number < 1) problems.push(`${id}.${name}: number ${field.number} is not positive`);
      const other = byNumber.get(field.number);
      if (other !== undefined) problems.push(`${id}.${name}: number ${field.number} is already ${other}'s`);
      byNumber.set(field.number, name);
      if (field.message !== undefined && !LEAF_MESSAGES.has(field.message) && !messages.has(field.message))
        problems.push(`${id}.${name}: unknown message ${field.message}`);
    }
  }
  return problems;
}
