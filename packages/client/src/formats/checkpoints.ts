/** How one path changed between two checkpoints. */
export interface CheckpointFile {
  path: string;
  change: "added" | "modified" | "deleted" | "type changed";
  /** Lines added and deleted; undefined for a binary file. */
  added: number | undefined;
  deleted: number | undefined;
}

/** A path a checkpoint left out, and why (`file-cap`, `nested-repository`…): a rewind leaves it alone. */
export interface NotedPath {
  path: string;
  reason: string;
}

/** One recorded state of the session's directory (a line of an agent's `checkpoints` file). */
export interface CheckpointEntry {
  n: number;
  /** The turn it was made in, before that turn's first write; undefined for a rewind's. */
  turn: number | undefined;
  time: Date;
  /** `turn`, or `before rewind`: the state a rewind to `rewindTo` replaced. */
  kind: "turn" | "before rewind";
  rewindTo: number | undefined;
  /** What changed since the checkpoint before. */
  files: CheckpointFile[];
  noted: NotedPath[];
}

/** An agent's checkpoints, and where they are kept. */
export interface Checkpoints {
  directory: string;
  /** Other sessions in the same directory: their turns record, and their rewinds change, the same files. */
  sharedWith: string[];
  /** Why none are kept, when none are (a remote session, no git). */
  unavailable: string | undefined;
  list: CheckpointEntry[];
}

const CHANGES = new Set(["added", "modified", "deleted", "type changed"]);

/** A path as the file has it: as it is, or a JSON string when it holds what could pass for lines. */
function unquote(path: string): string {
  if (!path.startsWith('"')) return path;
  try {
    return JSON.parse(path) as string;
  } catch {
    return path;
  }
}

export function parseCheckpoints(text: string): Checkpoints {
  const out: Checkpoints = { directory: "", sharedWith: [], unavailable: undefined, list: [] };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("\t")) {
      const [, what = "", counts = "", quoted = ""] = line.split("\t");
      const path = unquote(quoted);
      const last = out.list.at(-1);
      if (!last) continue;
      if (what === "noted") last.noted.push({ path, reason: counts });
      else if (CHANGES.has(what)) {
        const m = /^\+(\d+) -(\d+)$/.exec(counts);
        last.files.push({
          path,
          change: what as CheckpointFile["change"],
          added: m ? Number(m[1]) : undefined,
          deleted: m ? Number(m[2]) : undefined,
        });
      }
      continue;
    }
    const [n, turn, time, kind] = line.split("\t");
    if (kind !== undefined && /^\d+$/.test(n ?? "")) {
      const rewind = /^before rewind to (\d+)$/.exec(kind);
      out.list.push({
        n: Number(n),
        turn: turn?.startsWith("turn ") ? Number(turn.slice(5)) : undefined,
        time: new Date(time ?? ""),
        kind: rewind ? "before rewind" : "turn",
        rewindTo: rewind ? Number(rewind[1]) : undefined,
        files: [],
        noted: [],
      });
    } else if (line.startsWith("directory ")) out.directory = unquote(line.slice(10));
    else if (line.startsWith("shared with ")) out.sharedWith = line.slice(12).split(":")[0]!.split(" ");
    else if (line.startsWith("unavailable ")) out.unavailable = line.slice(12);
  }
  return out;
}
