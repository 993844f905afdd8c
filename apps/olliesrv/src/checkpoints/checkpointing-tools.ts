import type { ToolExecutor, ToolInfo, ToolResult } from "@ollie/agent-core";
import type { AgentCheckpoints } from "./agent-checkpoints.js";

/**
 * An agent's tools with a checkpoint before the first call of a turn to a tool that may write: any tool
 * not marked read-safe (`# ollie:parallel read`, MCP's `readOnlyHint`). A checkpoint that cannot be made is
 * told (`failed`) and the call goes on: the checkpoint is a safety net, not a gate on the agent's work.
 */
export class CheckpointingTools implements ToolExecutor {
  /** The read-safe tools as last listed. */
  #readSafe = new Set<string>();

  constructor(
    private readonly inner: ToolExecutor,
    private readonly checkpoints: AgentCheckpoints,
    private readonly failed: (error: Error) => void,
  ) {}

  async list(signal?: AbortSignal): Promise<ToolInfo[]> {
    const tools = await this.inner.list(signal);
    this.#readSafe = new Set(tools.filter((t) => t.readSafe).map((t) => t.name));
    return tools;
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    if (!this.#readSafe.has(name))
      await this.checkpoints.beforeWrite().catch((error: unknown) => this.failed(error as Error));
    return this.inner.call(name, args, signal);
  }

  revision(signal?: AbortSignal): Promise<number> {
    return this.inner.revision(signal);
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
