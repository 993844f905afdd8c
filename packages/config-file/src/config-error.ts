/** A line and column in a file, both counted from 1. */
export interface FilePosition {
  line: number;
  column: number;
}

/** One thing wrong with a configuration: where (the key path, and the position when the data came from text) and what. */
export interface ConfigProblem {
  /** The key path as the user writes it, `filesystem.rw[2]`; absent when the problem is with the whole. */
  key?: string;
  problem: string;
  position?: FilePosition;
}

/** `FILE:LINE:COLUMN: KEY: PROBLEM`, as compilers write it, leaving out the parts not known. */
export function formatProblem(source: string | undefined, p: ConfigProblem): string {
  const where =
    source !== undefined && p.position ? `${source}:${p.position.line}:${p.position.column}` : source;
  return [where, p.key, p.problem].filter((part) => part !== undefined && part !== "").join(": ");
}

/** Every problem: the first in full, the others after it as `; KEY: PROBLEM`. */
export function formatProblems(source: string | undefined, problems: readonly ConfigProblem[]): string {
  const [first, ...rest] = problems;
  if (!first) return source ?? "invalid configuration";
  const more = rest.map((p) => `; ${formatProblem(undefined, p)}`).join("");
  return `${formatProblem(source, first)}${more}`;
}

/**
 * A configuration (a file, or data that stands for one) that cannot be used. The message gives every problem,
 * the first in full (`FILE:LINE:COLUMN: KEY: PROBLEM`); `problems` has them as fields. Packages that read a
 * configuration file of their own throw a subclass naming it (PolicyError, AgentConfigError, …), so a caller
 * can catch one kind or all of them.
 */
export class ConfigError extends Error {
  override readonly name: string = "ConfigError";
  readonly problems: readonly ConfigProblem[];
  constructor(
    /** The file, or what the data is called where it did not come from a file; undefined when unknown. */
    readonly file: string | undefined,
    problems: readonly ConfigProblem[] | ConfigProblem,
  ) {
    const list = Array.isArray(problems) ? problems : [problems as ConfigProblem];
    super(formatProblems(file, list));
    this.problems = list;
  }

  /** The first problem's key path. */
  get key(): string | undefined {
    return this.problems[0]?.key;
  }

  /** The first problem, without its place. */
  get problem(): string {
    return this.problems[0]?.problem ?? "invalid";
  }

  /** Where the first problem is in the file, when the data came from text. */
  get position(): FilePosition | undefined {
    return this.problems[0]?.position;
  }
}
