import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NinepClient, OREAD, OWRITE } from "@ollie/ninep";
import { execa } from "execa";
import { expect, it } from "vitest";

it("the README's notes example serves what it declares", async () => {
  const dir = mkdtempSync(join(tmpdir(), "notes-"));
  const address = `unix!${join(dir, "notes.sock")}`;
  const service = execa(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./notes.ts", import.meta.url)), address],
    {
      reject: false,
    },
  );
  try {
    await new Promise<void>((resolve) => service.stdout!.once("data", () => resolve()));
    const client = await NinepClient.dial(address);
    // The notes are the user's running the service: its files are writable by their owner alone.
    const fsys = await client.attach({ uname: userInfo().username });
    const countwait = await fsys.open("countwait", OREAD);
    const changed = countwait.read(0);
    await fsys.writeFile("ctl", "save todo buy milk\n");
    expect((await changed).toString()).toBe("1\n");
    await fsys.writeFile("notes/todo", "buy oat milk\n");
    expect((await fsys.readFile("notes/todo")).toString()).toBe("buy oat milk\n");
    await expect(fsys.writeFile("ctl", "drop todo\n")).rejects.toThrow(
      "unknown command 'drop'; commands: save",
    );
    const bread = await fsys.create("notes/bread", { mode: OWRITE });
    await bread.write("rye\n");
    await bread.close();
    expect((await fsys.readdir("notes")).map((e) => e.name)).toEqual(["todo", "bread"]);
    await fsys.remove("notes/bread");
    expect((await fsys.readdir("notes")).map((e) => e.name)).toEqual(["todo"]);
    const events = await fsys.open("events", OREAD);
    expect((await events.read(0)).toString()).toBe(
      "saved todo\nsaved todo\nsaved bread\nsaved bread\nremoved bread\n",
    );
    client.close();
  } finally {
    service.kill("SIGTERM");
    await service;
    rmSync(dir, { recursive: true, force: true });
  }
});

it("is the README's example, word for word", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("./notes.ts", import.meta.url), "utf8");
  // Past its first line, which says what it is.
  expect(readme).toContain(`\`\`\`ts\n${example.slice(example.indexOf("\n") + 1)}\`\`\``);
});
