// `npm run demo`: a whole Ollie session offline. A mock provider server stands in for the model; olliesrv and
// toolsrv are the real daemons; the tool call runs in the Landlock sandbox. Nothing leaves this machine.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "@ollie/client";
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
  const client = await connect({ address: o.address, uname: o.owner, key: o.ownerKey() });
  const session = await client.newSession({ agent: "coding", cwd: o.work, name: "demo" });
  process.stdout.write(`$ ollie ask ${session.id} "Write a greeting into greeting.txt"\n`);
  const prompt = await session.agent().prompt("Write a greeting into greeting.txt");
  for await (const piece of prompt.chat()) process.stdout.write(piece.text);
  const { outcome } = await prompt.ended;
  process.stdout.write(`(the turn ended: ${outcome.text})\n\n$ cat ${join(o.work, "greeting.txt")}\n`);
  process.stdout.write(readFileSync(join(o.work, "greeting.txt"), "utf8"));
  process.stdout.write(
    `\n$ ninep read ollie/session/${session.id}/agent/main/cost\n${await o.read(`session/${session.id}/agent/main/cost`)}`,
  );
  // The session's private TMPDIR lives outside the demo's directory: ending the session removes it.
  await session.kill();
  client.close();
} finally {
  await o.stop();
  await o.remove();
}
