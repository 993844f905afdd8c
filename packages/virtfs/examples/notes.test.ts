import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NinepClient, OREAD } from "@ollie/ninep";
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
    const events = await fsys.open("events", OREAD);
    expect((await events.read(0)).toString()).toBe("saved todo\nsaved todo\n");
    client.close();
  } finally {
    service.kill("SIGTERM");
    await service;
    rmSync(dir, { recursive: true, force: true });
  }
});
