#!/usr/bin/env node
// A small MCP server over stdio, in plain JSON-RPC with nothing to import, so it runs under a sandbox that
// grants Node alone. `probe` says where and as what it runs; `write` writes a file, as far as its sandbox
// lets it.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const text = (t, isError = false) => ({ content: [{ type: "text", text: t }], ...(isError && { isError }) });
const tools = [
  {
    name: "probe",
    description: "Says its process id, directory, agent and greeting.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "write",
    description: "Writes text to a file.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, text: { type: "string" } },
      required: ["path", "text"],
    },
  },
];

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const answer = (result) => send({ id: message.id, result });
  switch (message.method) {
    case "initialize":
      return answer({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "probe", version: "1" },
      });
    case "tools/list":
      return answer({ tools });
    case "tools/call": {
      const { name, arguments: args = {} } = message.params;
      if (name === "probe")
        return answer(
          text(
            JSON.stringify({
              pid: process.pid,
              cwd: process.cwd(),
              agent: process.env.OLLIE_UNAME ?? null,
              greeting: process.env.GREETING ?? null,
            }),
          ),
        );
      try {
        writeFileSync(args.path, args.text);
        return answer(text(`wrote ${args.path}`));
      } catch (error) {
        return answer(text(error.message, true));
      }
    }
    default:
      send({ id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
  }
});
