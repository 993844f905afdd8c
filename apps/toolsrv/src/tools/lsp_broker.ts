// The companion of the lsp_* tools (their `ollie:companion`): toolsrv starts it, detached, for an agent
// whose first lsp_* call finds none running. It is no tool itself (it has no `ollie:tool` line).
// OLLIE_LSP_IDLE_SECONDS: how long a language server may sit unused before it is shut down (default 600).
import { runBroker } from "./lib/lsp/broker-socket.js";

const idle = Number(process.env.OLLIE_LSP_IDLE_SECONDS);
await runBroker(Number.isFinite(idle) && idle > 0 ? { serverIdleMs: idle * 1000 } : {});
process.exit(0);
