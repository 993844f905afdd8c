import { formatQid, quote } from "../format-values.js";
import type { Qid } from "../qid.js";
import { type Dirent, LINUX_MESSAGES, type LinuxMessage } from "./messages.js";

/** Fields whose bits read best in octal (Linux modes and open flags) or hex (attribute masks). */
export const OCTAL_FIELDS: ReadonlySet<string> = new Set(["mode", "flags"]);
export const HEX_FIELDS: ReadonlySet<string> = new Set(["valid", "requestMask"]);

function value(name: string, v: unknown): string {
  if (typeof v === "string") return quote(v);
  if (typeof v === "number" || typeof v === "bigint") {
    if (OCTAL_FIELDS.has(name)) return `0${v.toString(8)}`;
    if (HEX_FIELDS.has(name)) return `0x${v.toString(16)}`;
    return v.toString();
  }
  if (Array.isArray(v))
    return `[${(v as Dirent[]).map((d) => `(${formatQid(d.qid)} ${d.offset} ${d.type} ${quote(d.name)})`).join(" ")}]`;
  return formatQid(v as Qid);
}

/** A 9P2000.L message as one line of text: `Tlopen tag 1 fid 3 flags 0100000`. */
export function formatLinuxMessage(head: string, m: LinuxMessage): string {
  const values = m as unknown as Record<string, unknown>;
  const fields = LINUX_MESSAGES[m.type].fields.map(([name]) => `${name} ${value(name, values[name])}`);
  return fields.length > 0 ? `${head} ${fields.join(" ")}` : head;
}
