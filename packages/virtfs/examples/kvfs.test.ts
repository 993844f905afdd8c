import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { NinepClient, OREAD } from "@ollie/ninep";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const example = fileURLToPath(new URL("./kvfs.ts", import.meta.url));
const ninepBin = join(
  dirname(createRequire(import.meta.url).resolve("@ollie/ninep/package.json")),
  "bin/ninep.js",
);
const dir = mkdtempSync(join(tmpdir(), "kvfs-"));
const env = { NAMESPACE: dir, USER: "glenda" };
let service: ResultPromise;

const ninep = (args: string[], input?: string) =>
  execa(process.execPath, [ninepBin, ...args], { env, input, reject: false });

beforeAll(async () => {
  service = execa(process.execPath, ["--import", "tsx", example], { env, reject: false });
  let said = "";
  await new Promise<void>((resolve, reject) => {
    service.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("serving on")) resolve();
    });
    service.then(() => reject(new Error(`kvfs exited: ${said}`)));
  });
});

afterAll(async () => {
  service.kill("SIGTERM");
  await service;
  rmSync(dir, { recursive: true, force: true });
});

describe("the kvfs example, driven by the ninep command", () => {
  it("stores, lists, reads, counts and deletes keys through plain file operations", async () => {
    expect((await ninep(["write", "kvfs/ctl"], "set colour deep blue\n")).exitCode).toBe(0);
    expect((await ninep(["create", "kvfs/keys/size"])).exitCode).toBe(0);
    expect((await ninep(["write", "kvfs/keys/size"], "large\n")).exitCode).toBe(0);
    expect((await ninep(["ls", "kvfs/keys"])).stdout).toBe("colour\nsize");
    expect((await ninep(["read", "kvfs/keys/colour"])).stdout).toBe("deep blue");
    expect((await ninep(["read", "kvfs/count"])).stdout).toBe("2");
    const made = await ninep(["rdwr", "kvfs/new"], "shape round\n");
    expect(made.stderr).toBe("");
    expect(made.stdout).toBe("shape");
    expect((await ninep(["read", "kvfs/keys/shape"])).stdout).toBe("round");

    // A client holding countwait open sees the change the ninep command makes.
    const client = await NinepClient.dial(join(dir, "kvfs"));
    const countwait = await (await client.attach({ uname: "glenda" })).open("countwait", OREAD);
    const changed = countwait.read(0);
    expect((await ninep(["rm", "kvfs/keys/size"])).exitCode).toBe(0);
    expect((await changed).toString()).toBe("2\n");
    client.close();

    const refused = await ninep(["write", "kvfs/ctl"], "del nothing\n");
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe("ninep: kvfs/ctl: del: no key 'nothing'");

    const events = execa(process.execPath, [ninepBin, "read", "kvfs/events"], { env, reject: false });
    let followed = "";
    await new Promise<void>((resolve) => {
      events.stdout!.on("data", (chunk: Buffer) => {
        followed += chunk.toString();
        if (followed.endsWith("del size\n")) resolve();
      });
    });
    events.kill("SIGTERM");
    await events;
    expect(followed).toBe("set colour\nset size\nset size\nset shape\ndel size\n");
  });
});
