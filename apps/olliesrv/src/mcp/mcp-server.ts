import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { OlliesrvLink } from "./olliesrv-link.js";
import { prompt } from "./prompt-tool.js";
import { newSession, readChat, status, stop } from "./session-tools.js";

const INSTRUCTIONS = `Ollie runs LLM agents in sessions that olliesrv keeps: each session has a working directory, which its \
agent's tools may change (in a sandbox), and a conversation that goes on from prompt to prompt. Make a session \
with ollie_new_session in the project's directory, hand it work with ollie_prompt (which waits for the turn and \
answers with the agent's final reply), and look in with ollie_status and ollie_read_chat. A session outlives \
this connection: the same sessions are there in the ollie command (ollie ls, ollie sh SESSION).`;

const session = z
  .string()
  .describe("the session's id, as ollie_new_session gave it (ollie_status lists them)");

/**
 * The MCP server `ollie mcp` is: a tool for each thing the ollie command does with a session (ollie_status
 * answers what `ollie status` prints).
 */
export function ollieMcpServer(link: OlliesrvLink): McpServer {
  const server = new McpServer(
    { name: "ollie", version: __PACKAGE_VERSION__ },
    { instructions: INSTRUCTIONS },
  );

  server.registerTool(
    "ollie_new_session",
    {
      title: "New Ollie session",
      description:
        "Create an Ollie session: an agent working in a directory (its tools may write there, in a sandbox), with a conversation of its own. Returns the session's id, for the other ollie_ tools. Like `ollie new`.",
      inputSchema: {
        cwd: z
          .string()
          .optional()
          .describe("the absolute directory the agent works in (default: the directory ollie mcp runs in)"),
        agent: z
          .string()
          .optional()
          .describe(
            "the agent profile: `default` (the default), `coding`, `orchestrator`, `cascade` or one of your own; olliesrv's `profiles` file lists them all with what each is for",
          ),
        name: z.string().optional().describe("a name for the session, shown by ollie_status"),
        backend: z.string().optional().describe("a backend profile of backends.conf (default: its default)"),
        model: z.string().optional().describe("the model, of that backend (default: the backend's)"),
      },
      outputSchema: { session: z.string() },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) => newSession(link, args),
  );

  server.registerTool(
    "ollie_prompt",
    {
      title: "Prompt an Ollie agent",
      description:
        "Give a session's agent a prompt and wait for its turn to end: the agent works on its own, thinking and running tools in the session's directory, and the result is its final reply and how the turn ended. A turn that ended in error, maxsteps (the step limit), blocked (by a hook) or interrupted is an error result saying so. A prompt sent while a turn runs waits for it. Progress notifications say what the agent is doing; cancelling the call stops the turn. Like `ollie ask SESSION TEXT`.",
      inputSchema: {
        session,
        text: z.string().min(1).describe("the prompt"),
      },
      outputSchema: {
        session: z.string(),
        outcome: z
          .string()
          .describe("how the turn ended: done, handled, interrupted, maxsteps, blocked or error: REASON"),
        reply: z.string().describe("the agent's last reply of the turn (empty if it gave none)"),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (args, extra) => prompt(link, args.session, args.text, extra),
  );

  server.registerTool(
    "ollie_status",
    {
      title: "Ollie session status",
      description:
        "A session's state (idle, thinking, calling: TOOLS, hook: EVENT, compacting; failed: REASON after a failed turn), model, tokens and cost. Without a session: every session (id, name, state, directory), then each one's status. Like `ollie status` and `ollie ls`.",
      inputSchema: { session: session.optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => status(link, args.session),
  );

  server.registerTool(
    "ollie_read_chat",
    {
      title: "Read an Ollie conversation",
      description:
        "A session's conversation as text: the prompts (» …), the agent's replies, its tool calls (→) and their results (←), notes (·), retries (~) and errors (!). Like `ollie chat SESSION`.",
      inputSchema: {
        session,
        tail: z.number().int().positive().optional().describe("only the last this many lines"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => readChat(link, args.session, args.tail),
  );

  server.registerTool(
    "ollie_stop",
    {
      title: "Stop an Ollie turn",
      description:
        "Stop the turn a session's agent is running: the model request is closed and its running tool processes end; what was said stays in the conversation. An error when no turn runs. Like `ollie stop SESSION`.",
      inputSchema: { session },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) => stop(link, args.session),
  );

  return server;
}
