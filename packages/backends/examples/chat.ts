// The README's example: ask one question of a backends.conf profile and stream the answer.
// Run: node --import tsx examples/chat.ts CONF [PROFILE] "QUESTION"
import {
  BackendError,
  BackendPool,
  ContextOverflowError,
  costOf,
  loadBackendsConf,
  RateLimitError,
} from "@ollie/backends";

const [confFile = "backends.conf", ...rest] = process.argv.slice(2);
const question = rest.pop() ?? "Say hello.";
const profileName = rest[0]; // undefined: the conf's default profile

const pool = new BackendPool(await loadBackendsConf(confFile));
const backend = await pool.get(profileName);
const controller = new AbortController();
process.once("SIGINT", () => controller.abort()); // closes the HTTP request at once

try {
  const messages = [
    { role: "system" as const, content: "Answer in one sentence." },
    { role: "user" as const, content: question },
  ];
  for await (const event of backend.chatStream(messages, [], { maxTokens: 1024 }, controller.signal)) {
    if (event.type === "text") process.stdout.write(event.delta);
    if (event.type === "usage") {
      const { inputTokens, cachedInputTokens, outputTokens } = event.usage;
      const usd = costOf(backend.model, event.usage).toFixed(6);
      console.error(`\n[${inputTokens} in (${cachedInputTokens} cached), ${outputTokens} out, $${usd}]`);
    }
    if (event.type === "done") process.stdout.write(`\n(${event.reason})\n`);
  }
} catch (err) {
  if (err instanceof RateLimitError) {
    console.error(`rate limited; retry in ${(err.retryAfterMs ?? 30_000) / 1000} s`);
  } else if (err instanceof ContextOverflowError) {
    console.error("the conversation no longer fits: compact it and retry");
  } else if (err instanceof BackendError) {
    console.error(`${err.message} (${err.retryable ? "worth retrying" : "will not succeed as is"})`);
  } else {
    throw err;
  }
  process.exitCode = 1;
}
