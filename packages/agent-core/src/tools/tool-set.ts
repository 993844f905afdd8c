import type { ToolExecutor, ToolInfo, ToolResult } from "./tool-executor.js";

/** An in-process tool: its description and the function that runs it. */
export interface FunctionTool extends ToolInfo {
  /** Runs the call. Return the output text or a ToolResult; throw to report an error to the model. */
  run(args: Record<string, unknown>, context: { signal: AbortSignal }): Promise<string | ToolResult> | string;
}

/** Thrown for a call to a tool the set does not hold. */
export class UnknownToolError extends Error {
  override readonly name = "UnknownToolError";
  constructor(readonly tool: string) {
    super(`no tool named '${tool}'`);
  }
}

/**
 * A ToolExecutor over functions in this process, for programs that embed an agent. Adding or removing a
 * tool moves the revision, so a running agent picks the change up after its current round.
 */
export class ToolSet implements ToolExecutor {
  private readonly tools = new Map<string, FunctionTool>();
  private rev = 0;

  constructor(tools: Iterable<FunctionTool> = []) {
    for (const t of tools) this.tools.set(t.name, t);
  }

  add(tool: FunctionTool): void {
    this.tools.set(tool.name, tool);
    this.rev++;
  }

  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.rev++;
    return removed;
  }

  async list(): Promise<ToolInfo[]> {
    return [...this.tools.values()].map(({ run: _run, ...info }) => info);
  }

  async revision(): Promise<number> {
    return this.rev;
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) throw new UnknownToolError(name);
    const out = await tool.run(args, { signal });
    return typeof out === "string" ? { output: out } : out;
  }
}
