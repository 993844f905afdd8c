import { ReplyFormatError } from "../errors.js";

/** A tool process of an agent at toolsrv (a line of its `proc/idx`). */
export interface ToolProcess {
  /** Its number at toolsrv, the name of its directory `proc/ID/`. */
  id: number;
  /** The tool that runs it (`shell`, `mcp__SERVER__TOOL`…). */
  tool: string;
  /**
   * `running`, `exited N`, `killed by SIGNAL`, `timed out`, `cancelled` or `refused: …`, as toolsrv says it
   * (`proc/ID/status`).
   */
  status: string;
  /** When it started. */
  started: Date;
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

/**
 * `proc/idx`: one line per process, tab-separated — id, tool, status, start time (ISO). The status is the
 * only field that could hold a tab (a refusal's words), so it is what lies between the tool and the time.
 */
export function parseProcesses(text: string, path: string): ToolProcess[] {
  return lines(text).map((line) => {
    const fields = line.split("\t");
    const [id = "", tool = ""] = fields;
    const started = new Date(fields.at(-1) ?? "");
    if (fields.length < 4 || !/^[1-9]\d*$/.test(id) || tool === "" || Number.isNaN(started.getTime()))
      throw new ReplyFormatError(path, line, "not a process's line");
    return { id: Number(id), tool, status: fields.slice(2, -1).join("\t"), started };
  });
}
