import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type ClientConnection,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { execa } from "execa";
import { expect, vi } from "vitest";
import { OLLIE, type Ollie, WAIT } from "./harness.js";

/** A line of the conversation, as it went over the pipes: which way, and the JSON-RPC message. */
export interface TranscriptLine {
  from: "editor" | "agent";
  message: Record<string, unknown>;
}

/**
 * An editor, played with the ACP SDK's client side, driving `ollie acp` as a child process over its
 * standard input and output: every session/update it gets is kept, every line both ways is in the
 * transcript, and `permission` answers session/request_permission (rejecting by default).
 */
export function startEditor(
  o: Pick<Ollie, "address" | "env" | "work">,
  args: readonly string[] = [],
  address = o.address,
) {
  const child = execa(process.execPath, [OLLIE, "-a", address, "acp", ...args], {
    cwd: o.work,
    env: o.env,
    extendEnv: false,
    reject: false,
    stdin: "pipe",
  });
  const transcript: TranscriptLine[] = [];
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  const editor = {
    child,
    transcript,
    updates,
    asked,
    stderr: "",
    permission: async (_request: RequestPermissionRequest): Promise<RequestPermissionResponse> => ({
      outcome: { outcome: "selected", optionId: "reject" },
    }),
    connection: undefined as unknown as ClientConnection,
    /** The updates of `sessionId` of one kind. */
    of<K extends SessionUpdate["sessionUpdate"]>(sessionId: string, kind: K) {
      return updates
        .filter((n) => n.sessionId === sessionId)
        .map((n) => n.update)
        .filter((u): u is Extract<SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
    },
    /** Waits until the agent's standard error says `text`. */
    async said(text: string) {
      await vi.waitFor(() => expect(editor.stderr).toContain(text), WAIT);
    },
    /** Closes standard input, as an editor does, and resolves with the exit status. */
    async close() {
      child.stdin!.end();
      return (await child).exitCode;
    },
  };
  child.stderr!.on("data", (chunk: Buffer) => {
    editor.stderr += chunk.toString();
  });
  const record = (from: TranscriptLine["from"]) => {
    let partial = "";
    return (chunk: Buffer | string) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!;
      for (const line of lines) if (line.trim() !== "") transcript.push({ from, message: JSON.parse(line) });
    };
  };
  child.stdout!.on("data", record("agent"));
  const fromEditor = record("editor");
  const toAgent = new Writable({
    write(chunk: Buffer, _encoding, done) {
      fromEditor(chunk);
      child.stdin!.write(chunk, done);
    },
    final(done) {
      child.stdin!.end();
      done();
    },
  });
  const app = acpClient({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params);
      return editor.permission(params);
    });
  editor.connection = app.connect(
    ndJsonStream(
      Writable.toWeb(toAgent) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  return editor;
}

export type Editor = ReturnType<typeof startEditor>;
