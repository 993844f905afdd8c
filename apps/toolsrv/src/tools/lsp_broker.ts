// The companion of the lsp_* tools (their `ollie:companion`): toolsrv starts it, detached, for an agent
// whose lsp_* call finds none running. It is no tool itself (it has no `ollie:tool` line).
// From the session's environment: OLLIE_LSP_IDLE_SECONDS, how long a language server may sit unused before it
// is shut down (default 600); OLLIE_LSP_BROKER_IDLE_SECONDS, how long the broker waits, with no server left
// and no request, before it exits (default 60).
import { runBroker } from "./lib/lsp/broker-socket.js";

const seconds = (name: string) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
};
const serverIdleMs = seconds("OLLIE_LSP_IDLE_SECONDS");
const brokerIdleMs = seconds("OLLIE_LSP_BROKER_IDLE_SECONDS");
await runBroker({
  ...(serverIdleMs !== undefined && { serverIdleMs }),
  ...(brokerIdleMs !== undefined && { brokerIdleMs }),
});
process.exit(0);
