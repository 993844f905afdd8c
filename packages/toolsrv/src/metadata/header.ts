import { ConfigError, parseConfigText } from "@ollie/config-file";

/** Comment markers a header line may start with, by language. */
const MARKERS = ["#", "//", "--", ";", "%"];
const HEADER_LINES = 80;

const TYPES = new Set(["string", "integer", "number", "boolean", "object", "array"]);

/** A header that does not parse, and where. */
export class HeaderError extends Error {
  override readonly name = "HeaderError";
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

/**
 * Reads the `ollie:` lines of a script's leading comment block into raw metadata:
 *
 *     #!/bin/sh
 *     # ollie:tool file_read
 *     # ollie:description Read a text file.
 *     # ollie:param path string required  The file, relative to the working directory
 *     # ollie:param limit integer  How many lines at most
 *     # ollie:parallel read
 *     # ollie:tier cold
 *     # ollie:timeout 30
 *     # ollie:cache path
 *     # ollie:companion lsp_broker
 *     # ollie:background background 3600
 *
 * or, for parameters the compact form cannot say, `ollie:schema` followed by JSON Schema (lines of it are
 * joined). Undefined when the file has no `ollie:tool` line (it is not a tool).
 */
export function parseHeader(text: string): Record<string, unknown> | undefined {
  const lines = text.split("\n", HEADER_LINES + 1).slice(0, HEADER_LINES);
  const raw: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const schema: { line: number; text: string }[] = [];
  let seen = false;
  for (const [i, line] of lines.entries()) {
    const trimmed = line.trim();
    if (i === 0 && trimmed.startsWith("#!")) continue;
    if (trimmed === "") continue;
    const marker = MARKERS.find((m) => trimmed.startsWith(m));
    if (!marker) break;
    const body = trimmed.slice(marker.length).trim();
    const m = /^ollie:([a-z]+)\s*(.*)$/.exec(body);
    if (!m) continue;
    seen = true;
    const [, key, value] = m as unknown as [string, string, string];
    const n = i + 1;
    switch (key) {
      case "tool":
        raw.name = value;
        break;
      case "description":
        raw.description = raw.description ? `${raw.description} ${value}` : value;
        break;
      case "param": {
        const p = /^(\w+)\s+(\w+(?:\[\])?)(\s+required)?(?:\s+(.*))?$/.exec(value);
        if (!p) throw new HeaderError(n, "a param is 'NAME TYPE [required] [description]'");
        const [, name, type, req, description] = p as unknown as [string, string, string, string?, string?];
        const list = type.endsWith("[]");
        const base = list ? type.slice(0, -2) : type;
        if (!TYPES.has(base)) throw new HeaderError(n, `'${base}' is not a JSON Schema type`);
        const item = { type: base };
        properties[name] = {
          ...(list ? { type: "array", items: item } : item),
          ...(description && { description }),
        };
        if (req) required.push(name);
        break;
      }
      case "schema":
        schema.push({ line: n, text: value });
        break;
      case "parallel":
        raw.parallel = value;
        break;
      case "tier":
        raw.tier = value;
        break;
      case "timeout": {
        const seconds = Number(value);
        if (!Number.isFinite(seconds))
          throw new HeaderError(n, `timeout '${value}' is not a number of seconds`);
        raw.timeout = seconds;
        break;
      }
      case "cache":
        raw.cache = value;
        break;
      case "companion":
        raw.companion = value;
        break;
      case "background": {
        const b = /^(\w+)(?:\s+(\S+))?$/.exec(value);
        if (!b)
          throw new HeaderError(n, "background is 'ARG [SECONDS]': the boolean argument that asks for it");
        const [, argument, seconds] = b as unknown as [string, string, string?];
        if (seconds !== undefined && !Number.isFinite(Number(seconds)))
          throw new HeaderError(n, `background lifetime '${seconds}' is not a number of seconds`);
        raw.background = { argument, ...(seconds !== undefined && { timeout: Number(seconds) }) };
        break;
      }
      default:
        throw new HeaderError(n, `unknown field 'ollie:${key}'`);
    }
  }
  if (!seen || raw.name === undefined) return undefined;
  const [firstSchema] = schema;
  if (firstSchema) {
    if (Object.keys(properties).length > 0)
      throw new HeaderError(firstSchema.line, "use ollie:param or ollie:schema, not both");
    const json = schema.map((s) => s.text).join("\n");
    try {
      raw.parameters = parseConfigText(json, "ollie:schema", "json").data;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // The schema's lines were joined: the error's line is the header line it came from.
      const line = schema[(error.position?.line ?? 1) - 1] ?? firstSchema;
      throw new HeaderError(line.line, `ollie:schema is ${error.problem}`);
    }
  } else {
    raw.parameters = { type: "object", properties, ...(required.length > 0 && { required }) };
  }
  return raw;
}
