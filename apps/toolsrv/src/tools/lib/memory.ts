import { ToolError } from "./tool-io.js";

/** Where memories live: OLLIE_MEMORY_PATH, flat Markdown files. */
export function memoryDir(): string {
  const dir = process.env.OLLIE_MEMORY_PATH;
  if (!dir) throw new ToolError("OLLIE_MEMORY_PATH is not set: there is nowhere to keep memories");
  return dir;
}

/** `YYYYMMDDTHHmmss__slug--tag1-tag2.md`: sortable by time, searchable by name. */
export function memoryFileName(at: Date, title: string, tags: readonly string[]): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}T${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  const slug = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "note";
  const tagPart = tags.length > 0 ? `--${tags.map(slug).join("-")}` : "";
  return `${stamp}__${slug(title)}${tagPart}.md`;
}
