import { randomBytes } from "node:crypto";
import type { Backend } from "../../backend.js";
import { ReplyBuilder } from "../../stream/reply-builder.js";
import { estimateTextTokens, estimateTokens } from "../../tokens/token-estimate.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../../types.js";
import { demoStep } from "./demo-script.js";

/** The model a demo backend has, unless its profile names another. */
export const DEMO_MODEL = "ollie-demo";

/** The context window the demo says it has: room enough for any conversation worth having with it. */
const DEMO_CONTEXT = 128_000;

export interface DemoOptions {
  /** The profile name (default `demo`). */
  name?: string;
  /** The one model it lists (default `ollie-demo`). */
  model?: string;
}

/**
 * An offline backend for trying an agent without a key or a network: no model, but a script that shows a
 * turn's whole path. A turn's first request is answered with streamed text and one call of a tool the agent
 * offers (`file_read` of a file the prompt names, else `file_glob` of the working directory, else `shell`
 * running `ls -A`), so the call really runs; the next request is answered from the tool's result, saying
 * what it found. Each reply says it comes from the demo and how to configure a real backend. It reports
 * estimated tokens at no cost, and lists one model.
 */
export class DemoBackend implements Backend {
  readonly provider = "demo";
  readonly name: string;
  private currentModel: string;

  constructor(options: DemoOptions = {}) {
    this.name = options.name ?? "demo";
    this.currentModel = options.model ?? DEMO_MODEL;
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  async *chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    _params: GenerationParams = {},
    signal?: AbortSignal,
  ): AsyncGenerator<StreamEvent> {
    signal?.throwIfAborted();
    const step = demoStep(messages, tools);
    const b = new ReplyBuilder();
    // A word at a time, as a model's stream comes: each its own event.
    for (const word of step.text.match(/\S+\s*/g) ?? []) {
      b.text(word);
      yield* this.drained(b, signal);
    }
    let args = "";
    if (step.call) {
      const id = `call_demo_${randomBytes(6).toString("hex")}`;
      args = JSON.stringify(step.call.arguments);
      b.toolCallStart(0, id, step.call.name);
      b.toolCallDelta(0, args);
      b.toolCall(0, { id, name: step.call.name, arguments: step.call.arguments });
    }
    b.setUsage({
      inputTokens: estimateTokens(messages, tools),
      outputTokens: estimateTextTokens(step.text) + estimateTextTokens(args),
      cachedInputTokens: 0,
      cacheCreationTokens: 0,
      inputEstimated: true,
      costUsd: 0,
    });
    b.identify(this.currentModel, undefined);
    b.done(step.call ? "tool_use" : "stop");
    yield* this.drained(b, signal);
  }

  private *drained(b: ReplyBuilder, signal: AbortSignal | undefined): Generator<StreamEvent> {
    for (const event of b.drain()) {
      signal?.throwIfAborted();
      yield event;
    }
  }

  async contextLength(): Promise<number | undefined> {
    return DEMO_CONTEXT;
  }

  async models(): Promise<ModelInfo[]> {
    return [{ id: this.currentModel, contextLength: DEMO_CONTEXT, tools: true }];
  }
}
