import type { Backend, Message, Tool, Usage } from "@ollie/backends";
import { estimateMessageTokens, estimateTokens } from "@ollie/backends";
import { NUDGE_PREFIX } from "../history/nudge.js";
import { renderTaskState, type TaskState } from "../history/task-state.js";
import { collapse } from "../history/tiers.js";
import { requestReply } from "../model/model-request.js";
import type { RetryPolicy } from "../model/retry-policy.js";
import { requestMessages } from "../runtime/runtime.js";
import type { ToolInfo } from "../tools/tool-executor.js";
import type { CompactionOptions, CompactionTrigger } from "./compaction-options.js";
import { recordDropped, writeSnapshot } from "./snapshot.js";
import { COMPACTION_INSTRUCTIONS, parseSummary } from "./summary.js";
import { collapseWarm, hotStart, transcript } from "./zones.js";

export interface CompactionRun {
  messages: readonly Message[];
  taskState: TaskState;
  tools: ReadonlyMap<string, ToolInfo>;
  toolSchemas: readonly Tool[];
  preamble: string;
  /** The model that writes the summary (the profile's compaction model when it has one). */
  backend: Backend;
  options: CompactionOptions;
  retry: RetryPolicy;
  sessionId: string;
  trigger: CompactionTrigger;
  contextLength: number;
  /** More instructions for the summary (the preCompact hook's output). */
  extraInstructions: string;
  signal: AbortSignal;
  /** Told what the summary request used and which model served it, as soon as it is answered. */
  onUsage?: (usage: Usage, model: string) => void;
}

export interface CompactionResult {
  messages: Message[];
  taskState: TaskState;
  tokensBefore: number;
  tokensAfter: number;
  /** Whether it saved at least the options' minimum fraction. */
  progress: boolean;
  /** Indices (in the old history) of the messages summarized away. */
  dropped: number[];
  snapshot?: string;
}

/**
 * Compacts a history into three zones: cold — the task state the model writes from the older messages;
 * warm — a one-line index of decisions; hot — the last messages verbatim, tool calls with their results.
 * Warm-tier results become one line. If the hot zone alone is still over the threshold, its tool results
 * are collapsed too, oldest first. The snapshot is written before anything else; a summary that cannot be
 * read throws, and the caller keeps the old history.
 */
export async function compactHistory(run: CompactionRun): Promise<CompactionResult> {
  const withSystem = (messages: readonly Message[]) => requestMessages(run.preamble, messages);
  const tokensBefore = estimateTokens(withSystem(run.messages), run.toolSchemas);
  const start = hotStart(run.messages, run.options.hotMessages);
  const older = run.messages.slice(0, start);
  const snapshot = run.options.snapshotDir
    ? await writeSnapshot(
        run.options.snapshotDir,
        run.sessionId,
        {
          at: new Date().toISOString(),
          trigger: run.trigger,
          messages: run.messages.length,
          tokens: tokensBefore,
        },
        run.messages,
      )
    : undefined;

  let taskState = run.taskState;
  let head: Message[] = [];
  if (older.length > 0) {
    const summary = await summarize(run, older);
    taskState = summary.taskState;
    const index =
      summary.decisions.length > 0
        ? `\n\nDecisions so far:\n${summary.decisions.map((d) => `- ${d}`).join("\n")}`
        : "";
    head = [
      {
        role: "user",
        content: `${NUDGE_PREFIX}The conversation before this point was compacted.\n\n${renderTaskState(taskState)}${index}`,
      },
    ];
  }
  const messages = [...head, ...collapseWarm(run.messages.slice(start), run.tools)];
  const limit = run.options.threshold * run.contextLength;
  // Counted once; each collapse changes the count by what that one message saves.
  let tokensAfter = estimateTokens(withSystem(messages), run.toolSchemas);
  for (let i = head.length; i < messages.length && tokensAfter > limit; i++) {
    const m = messages[i]!;
    if (m.role !== "tool") continue;
    const collapsed = collapse(m);
    tokensAfter += estimateMessageTokens(collapsed) - estimateMessageTokens(m);
    messages[i] = collapsed;
  }
  const dropped = older.map((_, i) => i);
  if (snapshot) {
    const bytes = older.reduce((n, m) => n + Buffer.byteLength(m.content, "utf8"), 0);
    await recordDropped(snapshot, { indices: dropped, bytes, tokensBefore, tokensAfter });
  }
  return {
    messages,
    taskState,
    tokensBefore,
    tokensAfter,
    progress: tokensBefore - tokensAfter >= run.options.minSavings * tokensBefore,
    dropped,
    ...(snapshot && { snapshot }),
  };
}

async function summarize(run: CompactionRun, older: readonly Message[]) {
  const request = [
    transcript(older),
    `Current task state:\n${JSON.stringify(run.taskState)}`,
    run.extraInstructions ? `Also:\n${run.extraInstructions}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const reply = await requestReply({
    backend: run.backend,
    messages: [
      { role: "system", content: COMPACTION_INSTRUCTIONS },
      { role: "user", content: request },
    ],
    tools: [],
    params: {},
    policy: run.retry,
    signal: run.signal,
    onText: () => {},
    onDiscard: () => {},
    onReasoning: () => {},
    onRetry: () => {},
    onError: async () => false,
    purpose: "compaction",
    conversationId: run.sessionId,
  });
  if (!reply.ok) throw reply.aborted ? run.signal.reason : reply.error;
  // Counted before the reply is read: a summary that cannot be used has cost as much as one that can.
  if (reply.usage) run.onUsage?.(reply.usage, run.backend.model);
  return parseSummary(reply.message.content, run.options.warmEntries);
}
