/** A parsed media type: `application/json;as=Table;g=meta.x;v=v1` → type/subtype + params. */
export interface MediaType {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
  readonly quality: number;
}

export function parseMediaType(text: string): MediaType {
  const [head = "", ...rest] = text.split(";");
  const params: Record<string, string> = {};
  let quality = 1;
  for (const part of rest) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const key = part.slice(0, index).trim().toLowerCase();
    const value = part
      .slice(index + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (key === "q") quality = Number(value);
    else params[key] = value;
  }
  return { type: head.trim().toLowerCase(), params, quality: Number.isFinite(quality) ? quality : 0 };
}

/** Accept header entries in preference order (stable for equal quality). */
export function parseAccept(header: string | undefined): MediaType[] {
  if (header === undefined || header.trim() === "") return [{ type: "*/*", params: {}, quality: 1 }];
  return header
    .split(",")
    .map((entry) => parseMediaType(entry))
    .filter((entry) => entry.type !== "" && entry.quality > 0)
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.quality - a.entry.quality || a.index - b.index)
    .map(({ entry }) => entry);
}
