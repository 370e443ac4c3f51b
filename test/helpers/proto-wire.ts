// A few lines of protobuf wire format, written from the protobuf encoding spec for tests that build
// or read kube's stored bytes by hand, independently of the server's codec.

/** A field: a number and a varint, string, bytes or nested message (length-delimited). */
export type Field = readonly [number: number, value: number | string | Uint8Array | readonly Field[]];

function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

/** Encodes fields in the order given (numbers: varint; strings, bytes and field lists: length-delimited). */
export function message(fields: readonly Field[]): Buffer {
  const parts: Buffer[] = [];
  for (const [number, value] of fields) {
    if (typeof value === "number") {
      parts.push(Buffer.from([...varint(number * 8), ...varint(value)]));
      continue;
    }
    const body = typeof value === "string" ? Buffer.from(value, "utf8") : value instanceof Uint8Array ? Buffer.from(value) : message(value);
    parts.push(Buffer.from([...varint(number * 8 + 2), ...varint(body.length)]), body);
  }
  return Buffer.concat(parts);
}

/** A map<string, string|bytes> entry list as repeated `number` fields of {key=1, value=2}. */
export function mapEntries(number: number, entries: Readonly<Record<string, string | Uint8Array>>): Field[] {
  return Object.keys(entries)
    .sort()
    .map(
      (key) =>
        [
          number,
          [
            [1, key],
            [2, entries[key] as string | Uint8Array],
          ],
        ] as const,
    );
}

/** kube's storage envelope: `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding "", contentType ""}. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from("k8s\0", "latin1"),
    message([
      [
        1,
        [
          [1, apiVersion],
          [2, kind],
        ],
      ],
      [2, raw],
      [3, ""],
      [4, ""],
    ]),
  ]);
}

/** A decoded message: each field number's values in order (varints as numbers, length-delimited as bytes). */
export type Decoded = Map<number, (number | Buffer)[]>;

export function decode(bytes: Uint8Array): Decoded {
  const buffer = Buffer.from(bytes);
  const out: Decoded = new Map();
  let position = 0;
  const readVarint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = buffer[position++];
      if (byte === undefined) throw new Error("truncated varint");
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
  };
  while (position < buffer.length) {
    const tag = readVarint();
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    let value: number | Buffer;
    if (wireType === 0) value = readVarint();
    else if (wireType === 2) {
      const length = readVarint();
      value = buffer.subarray(position, position + length);
      if (value.length !== length) throw new Error("truncated field");
      position += length;
    } else throw new Error(`wire type ${wireType} is not used by these messages`);
    out.set(number, [...(out.get(number) ?? []), value]);
  }
  return out;
}

/** The first value of a length-delimited field as bytes (throws when absent). */
export function bytesOf(decoded: Decoded, number: number): Buffer {
  const value = decoded.get(number)?.[0];
  if (!(value instanceof Buffer)) throw new Error(`field ${number} is not a length-delimited field here`);
  return value;
}

export function stringOf(decoded: Decoded, number: number): string {
  return bytesOf(decoded, number).toString("utf8");
}

/** A map field's entries as an object of strings. */
export function mapOf(decoded: Decoded, number: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of decoded.get(number) ?? []) {
    if (!(entry instanceof Buffer)) continue;
    const fields = decode(entry);
    out[stringOf(fields, 1)] = fields.has(2) ? stringOf(fields, 2) : "";
  }
  return out;
}
