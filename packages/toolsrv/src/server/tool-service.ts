import { describeIssues, formatProblems } from "@ollie/config-file";
import { type LimitEnforcement, limitEnforcement, resourceGroups, type SandboxPolicy } from "@ollie/sandbox";
import type { z } from "zod";
import { CallTiming } from "../exec/call-timing.js";
import { startTool, type ToolOutcome, type ToolRun } from "../exec/run-tool.js";
import { ToolPolicies } from "../exec/tool-policies.js";
import { startMcpCall } from "../mcp/mcp-call.js";
import type { ToolMeta } from "../metadata/tool-meta.js";
import { type CallResult, callRequestSchema } from "../protocol/call.js";
import type { AgentToolSets } from "./agent-tools.js";
import { BUILTINS, isBuiltin } from "./builtins.js";
import { type CallTrace, inCallSpan } from "./call-span.js";
import { Companions } from "./companions.js";
import type { ProcTable } from "./proc-table.js";
import { processKill, processOutput } from "./process-builtins.js";
import { isMcpTool, isOwnMcpTool, type ToolSources } from "./tool-sources.js";

export interface ToolServiceOptions {
  policy: SandboxPolicy;
  maxOutputBytes?: number;
  /** Variables every tool gets unless the call's session environment sets them (PATH, OLLIE_MEMORY_PATH…). */
  baseEnv?: Record<string, string>;
  /** Paths no tool may reach (see ToolServerOptions.protect). */
  protect?: readonly string[];
  /** Paths no tool may write (see ToolServerOptions.protectWrites). */
  protectWrites?: readonly string[];
  /** How many detached processes one agent may have running at once (default 16). */
  maxBackground?: number;
  /** Return each call's phases with its result (see CallTiming). */
  timing?: boolean;
  /** The name of the sandbox policy, on each call's span as `ollie.sandbox.policy` (default `default`). */
  policyName?: string;
}

export const DEFAULT_MAX_BACKGROUND = 16;

const failure = (output: string): CallResult => ({ output, isError: true });

type ParsedCall = z.output<typeof callRequestSchema>;

/** Runs calls for agents: checks the tool is loaded, answers builtins, starts the rest under the sandbox. */
export class ToolService {
  private readonly companions: Companions;
  private policy: SandboxPolicy;
  private policyName: string;
  /** Each tool's policy, built once per policy revision. */
  private readonly policies = new ToolPolicies();

  constructor(
    readonly sources: ToolSources,
    readonly agents: AgentToolSets,
    readonly procs: ProcTable,
    private readonly options: ToolServiceOptions,
  ) {
    this.companions = new Companions(procs);
    this.policy = options.policy;
    this.policyName = options.policyName ?? "default";
  }

  /**
   * The policy every call starts from, the paths no call may reach and those no call may write, and how its
   * limits are enforced.
   */
  async sandbox(): Promise<{
    policy: SandboxPolicy;
    protect: readonly string[];
    protectWrites: readonly string[];
    limits: LimitEnforcement[];
  }> {
    const policy = this.policy;
    const limits = limitEnforcement(policy, await resourceGroups());
    return {
      policy,
      protect: this.options.protect ?? [],
      protectWrites: this.options.protectWrites ?? [],
      limits,
    };
  }

  /**
   * Puts a new policy in force: every tool process started from now on (calls and companions) runs under
   * it, and nothing built for the old one is used again. Processes already running keep theirs, and so do
   * MCP servers already started. `name` names it on calls' spans (the name in force until then by default).
   */
  setPolicy(policy: SandboxPolicy, name = this.policyName): void {
    this.policy = policy;
    this.policyName = name;
  }

  /** The policy every call starts from now (see setPolicy). */
  currentPolicy(): SandboxPolicy {
    return this.policy;
  }

  /** The variables every tool gets unless its session's environment sets them. */
  get baseEnv(): Readonly<Record<string, string>> {
    return this.options.baseEnv ?? {};
  }

  /** A record of a call's phases when timing is on; undefined (and no cost) when it is off. */
  startTiming(): CallTiming | undefined {
    return this.options.timing ? new CallTiming() : undefined;
  }

  /** An agent's tools: the builtins, then the loaded tools that exist, by name. */
  async loaded(uname: string): Promise<ToolMeta[]> {
    const tools = await this.sources.tools(uname);
    const names = [...this.agents.of(uname).loaded].sort();
    return [...BUILTINS, ...names.flatMap((n) => tools.get(n)?.meta ?? [])];
  }

  async call(uname: string, raw: unknown, signal: AbortSignal, timing?: CallTiming): Promise<CallResult> {
    const parsed = callRequestSchema.safeParse(raw);
    timing?.mark("validate");
    if (!parsed.success) {
      return failure(
        `bad call request: ${formatProblems(undefined, describeIssues(callRequestSchema, parsed.error.issues))}`,
      );
    }
    const request = parsed.data;
    const builtin = isBuiltin(request.tool);
    const carrier =
      request.traceparent === undefined
        ? undefined
        : {
            traceparent: request.traceparent,
            ...(request.tracestate !== undefined && { tracestate: request.tracestate }),
          };
    return inCallSpan(
      {
        tool: request.tool,
        uname,
        ...(!builtin && { policy: this.policyName }),
        ...(carrier && { carrier }),
        ...(timing && { timing }),
      },
      (trace) =>
        builtin
          ? this.builtin(uname, request.tool, request.args, signal)
          : this.run(uname, request, signal, timing, trace),
    );
  }

  /** Runs a call of a tool, as the agent `uname`, in the call's span. */
  private async run(
    uname: string,
    request: ParsedCall,
    signal: AbortSignal,
    timing: CallTiming | undefined,
    trace: CallTrace,
  ): Promise<CallResult> {
    const refuse = (errorType: string, reason: string) => {
      trace.refuse(errorType, reason);
      return failure(reason);
    };
    const agent = this.agents.of(uname);
    if (!agent.loaded.has(request.tool)) {
      return refuse(
        "not_loaded",
        `${request.tool} is not loaded: load it with tool_load (tool_list shows what exists)`,
      );
    }
    const entry = await this.sources.get(request.tool, uname);
    if (!entry)
      return refuse("not_offered", `${request.tool} is no longer offered (tool_list shows what exists)`);
    // A tool that may run in the background does when the model sets its argument for it.
    const background = entry.meta.background;
    const detach =
      request.detach === true || (background !== undefined && request.args[background.argument] === true);
    const limit = this.options.maxBackground ?? DEFAULT_MAX_BACKGROUND;
    if (detach && this.procs.runningDetached(uname) >= limit)
      return refuse(
        "background_limit",
        `${request.tool} was not started: ${limit} background processes of yours are running, the most there may be; end one with process_kill`,
      );
    const env = { ...this.options.baseEnv, ...request.env, OLLIE_UNAME: uname };
    agent.lastCall = { cwd: request.cwd, env, at: new Date() };
    timing?.mark("lookup");
    let run: ToolRun;
    try {
      if (!isMcpTool(entry) && entry.meta.companion !== undefined)
        await this.companions.ensure(
          uname,
          entry,
          { args: {}, cwd: request.cwd, env },
          { ...this.runOptions(uname), trace: { ...trace.run, detached: true } },
        );
      run = isMcpTool(entry)
        ? startMcpCall(
            entry,
            // An agent's own server is the one it was given; mcp.json's are shared, or made per agent.
            isOwnMcpTool(entry)
              ? entry.link
              : this.sources.mcp!.linkFor(entry, { uname, cwd: request.cwd, env }),
            request.args,
            {
              ...(this.options.maxOutputBytes && { maxOutputBytes: this.options.maxOutputBytes }),
              ...(!detach && { signal }),
              trace: trace.run,
            },
          )
        : await startTool(
            entry,
            {
              args: request.args,
              cwd: request.cwd,
              env,
            },
            {
              ...this.runOptions(uname),
              ...(detach ? background && { timeoutMs: background.timeoutMs } : { signal }),
              ...(timing && !detach && { timing }),
              trace: { ...trace.run, detached: detach },
            },
          );
    } catch (error) {
      trace.couldNotStart(error);
      return failure(`${request.tool} could not start: ${(error as Error).message}`);
    }
    const proc = this.procs.add({
      uname,
      args: request.args,
      cwd: request.cwd,
      detached: detach,
      run,
    });
    if (detach)
      return {
        output: `started in the background as process ${proc.id}; read its output with process_output, end it with process_kill\n`,
        isError: false,
        proc: proc.id,
        detached: true,
      };
    return { ...resultOf(await run.done), proc: proc.id };
  }

  /**
   * How every tool process of an agent runs: the policy, the output kept, the protected paths, and the agent's
   * group, whose process and memory limits all its tool processes share.
   */
  private runOptions(uname: string) {
    return {
      group: uname,
      policy: this.policy,
      policies: this.policies,
      ...(this.options.maxOutputBytes && { maxOutputBytes: this.options.maxOutputBytes }),
      ...(this.options.protect && { protect: this.options.protect }),
      ...(this.options.protectWrites && { protectWrites: this.options.protectWrites }),
    };
  }

  /** Loads `names` for an agent if every one exists: the names it added, or the ones that do not exist. */
  async load(uname: string, names: readonly string[]): Promise<{ added: string[] } | { unknown: string[] }> {
    const tools = await this.sources.tools(uname);
    const unknown = names.filter((n) => !tools.has(n));
    return unknown.length > 0 ? { unknown } : { added: this.agents.of(uname).load(names) };
  }

  private async builtin(
    uname: string,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallResult> {
    if (tool === "process_output") return processOutput(this.procs, uname, args, signal);
    if (tool === "process_kill") return processKill(this.procs, uname, args, signal);
    const agent = this.agents.of(uname);
    const tools = await this.sources.tools(uname);
    if (tool === "tool_active") {
      const lines = [...agent.loaded]
        .sort()
        .flatMap((n) => tools.get(n)?.meta ?? [])
        .map((m) => `${m.name} — ${m.description.split("\n", 1)[0]}`);
      const always = `always there: ${BUILTINS.map((b) => b.name).join(", ")}`;
      return {
        output: `${[...(lines.length > 0 ? lines : ["no tools loaded (tool_list shows what exists)"]), always].join("\n")}\n`,
        isError: false,
      };
    }
    if (tool === "tool_list") {
      const rest = [...tools.values()].filter((t) => !agent.loaded.has(t.meta.name));
      const lines = rest.map((t) => `${t.meta.name} — ${t.meta.description.split("\n", 1)[0]}`);
      return {
        output: lines.length > 0 ? `${lines.join("\n")}\n` : "every tool is loaded\n",
        isError: false,
      };
    }
    const names = Array.isArray(args.names)
      ? args.names.map(String)
      : typeof args.name === "string"
        ? [args.name]
        : [];
    if (names.length === 0) return failure("tool_load needs names: the tools to load");
    const loaded = await this.load(uname, names);
    if ("unknown" in loaded)
      return failure(`no tool named ${loaded.unknown.join(", ")} (tool_list shows what exists)`);
    const { added } = loaded;
    return {
      output: added.length > 0 ? `loaded ${added.join(", ")}\n` : `already loaded: ${names.join(", ")}\n`,
      isError: false,
    };
  }
}

/**
 * A finished run as a call result: a non-zero exit, a signal, a timeout, a refusal, a limit that ended it or
 * a failure that left it without a result is an error.
 */
export function resultOf(o: ToolOutcome): CallResult {
  const isError = o.exitCode !== 0 || o.timedOut || o.cancelled || o.launcherError !== undefined;
  return {
    output: o.output,
    isError,
    exitCode: o.exitCode,
    signal: o.signal,
    stderr: o.stderr,
    bytes: o.bytes,
    truncated: o.truncated,
    timedOut: o.timedOut,
    cancelled: o.cancelled,
    durationMs: o.durationMs,
    ...(o.reached && { reached: o.reached }),
    ...(o.failure !== undefined && { failure: o.failure }),
  };
}
