import type { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { ApiError, badRequest } from "../../api/errors.js";

/** Reading helpers shared by the message, leaf and envelope readers: each problem is a 400 naming the message. */

/** The next tag; a tag cut short is a truncated body. */
export function readTag(reader: BinaryReader, message: string): [number, WireType] {
  try {
    const [number, wireType] = reader.tag();
    if (number < 1) throw badRequest(`protobuf: invalid field number ${number} in ${message}`);
    return [number, wireType];
  } catch (error) {
    if (isApiError(error)) throw error;
    throw truncated(message, error);
  }
}

/** A length-delimited value, checked against the bytes that remain. */
export function readBytes(reader: BinaryReader, message: string, number: number): Uint8Array {
  const start = reader.pos;
  let length: number;
  try {
    length = reader.uint32();
  } catch (error) {
    throw truncated(message, error);
  }
  if (reader.pos + length > reader.len)
    throw badRequest(`protobuf: field ${number} of ${message} says ${length} bytes but only ${reader.len - reader.pos} remain (truncated or corrupt body)`);
  reader.pos = start;
  return reader.bytes();
}

export function expectWireType(actual: WireType, expected: WireType, message: string, number: number): void {
  if (actual !== expected) throw badRequest(`protobuf: field ${number} of ${message} has wire type ${actual}, expected ${expected}`);
}

export function truncated(message: string, error: unknown): Error {
  const detail = error instanceof Error ? error.message : String(error);
  return badRequest(`protobuf: ${message} is truncated (${detail})`);
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/**
 * Steps over a field the message does not declare, as kube's generated code does (`skipGenerated`):
 * a newer client's fields (kubectl 1.33 writes every scalar of its types, such as a Pod status's
 * `observedGeneration`) are dropped, not refused. A field cut short is still a truncated body.
 */
export function skipField(reader: BinaryReader, wireType: WireType, message: string, number: number): void {
  try {
    reader.skip(wireType, number);
  } catch (error) {
    throw truncated(`${message} (field ${number})`, error);
  }
}
