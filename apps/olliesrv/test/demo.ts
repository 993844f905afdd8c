// `npm run demo`: a whole Ollie session offline. A mock provider server stands in for the model; olliesrv and
// toolsrv are the real daemons; the tool call runs in the Landlock sandbox. Nothing leaves this machine.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionClient } from "../src/cli/session-client.js";
import { startOllie } from "./harness.js";

const o = await startOllie("ollie-demo-");
try {
  process.stdout.write(`olliesrv is serving at ${o.address}, with a mock model\n\n`);
  o.mock.enqueue(
    {
      text: "I'll write the greeting into a file.",
      toolCalls: [
        {
          name: "file_write",
          arguments: { path: "greeting.txt", content: "Hello from inside the sandbox!\n" },
        },
      ],
      chunkSize: 6,
      delayMs: 40,
    },
    {
      text: "Done: greeting.txt now holds the greeting. Read it with `cat greeting.txt`.",
      chunkSize: 6,
      delayMs: 40,
    },
  );
  const client = await SessionClient.connect(o.address, async () => ({ uname: o.owner, key: o.ownerKey() }));
  const session = await client.create(JSON.stringify({ agent: "coding", cwd: o.work, name: "demo" }));
  process.stdout.write(`$ ollie ask ${session} "Write a greeting into greeting.txt"\n`);
  const outcome = await client.ask(session, "Write a greeting into greeting.txt", (text) =>
    process.stdout.write(text),
  );
  process.stdout.write(`(the turn ended: ${outcome})\n\n$ cat ${join(o.work, "greeting.txt")}\n`);
  process.stdout.write(readFileSync(join(o.work, "greeting.txt"), "utf8"));
  process.stdout.write(
    `\n$ ninep read ollie/session/${session}/agent/main/cost\n${await client.read(`session/${session}/agent/main/cost`)}`,
  );
  // The session's private TMPDIR lives outside the demo's directory: ending the session removes it.
  await client.write(`session/${session}/ctl`, "kill\n");
  client.close();
} finally {
  await o.stop();
  await o.remove();
}
