import { join } from "node:path";
import { NinepServer } from "@ollie/ninep";
import { buildTree, clone, dir, each, file, text, WatchedValue, wait } from "@ollie/virtfs";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED, scratch } from "./daemon.js";

/** bypass_request against a stand-in for olliesrv's `bypass/`, which decides as `decide` says. */

const s = scratch("toolsrv-bypass-tool-");
const address = `unix!${join(s.root, "ollie.sock")}`;
let operations = "";
let filed: Array<{ body: unknown; by: string }> = [];
let decide: { decision: string; status: string; output: string } = { decision: "", status: "", output: "" };
let server: NinepServer;

interface Fake {
  id: string;
  decision: WatchedValue<string>;
  status: WatchedValue<string>;
}
const requests: Fake[] = [];

beforeAll(async () => {
  const operationsFile = file(
    "operations",
    text(() => operations),
  );
  const newFile = file(
    "new",
    clone((body, { uname }) => {
      filed.push({ body: JSON.parse(body), by: uname });
      const r: Fake = {
        id: String(requests.length + 1),
        decision: new WatchedValue("pending"),
        status: new WatchedValue("pending"),
      };
      requests.push(r);
      // The owner decides a moment later; the command's output is there when its status is.
      setTimeout(() => {
        r.decision.set(decide.decision);
        r.status.set(decide.status);
      }, 50);
      return r.id;
    }),
    0o666,
  );
  const requestDir = (r: Fake) =>
    dir(r.id, [
      file(
        "decision",
        text(() => `${r.decision.get()}\n`),
      ),
      file("decisionwait", wait(r.decision)),
      file(
        "status",
        text(() => `${r.status.get()}\n`),
      ),
      file("statuswait", wait(r.status)),
      file(
        "output",
        text(() => decide.output),
      ),
    ]);
  const tree = buildTree(
    dir("/", [
      each(
        "bypass",
        () => ["operations", "new", ...requests] as Array<string | Fake>,
        (item) =>
          item === "operations" ? operationsFile : item === "new" ? newFile : requestDir(item as Fake),
        { key: (item) => (typeof item === "string" ? item : item.id) },
      ),
    ]),
  );
  server = new NinepServer(tree);
  await server.listen(address);
});
afterAll(async () => {
  await server.close();
  s.remove();
});

async function run(args: Record<string, unknown>) {
  const r = await execa(join(BUNDLED, "bypass_request"), [], {
    cwd: s.work,
    input: JSON.stringify(args),
    env: { PATH: process.env.PATH, OLLIE_UNAME: "s1.main", OLLIE_ADDRESS: address },
    extendEnv: false,
    reject: false,
  });
  return { out: String(r.stdout), err: String(r.stderr), code: r.exitCode };
}

describe("bypass_request", () => {
  it("names what the policy offers instead of filing a request it cannot grant", async () => {
    filed = [];
    operations = "";
    expect((await run({ operation: "apt_install", reason: "rg" })).err).toBe(
      "the bypass policy offers no operations: nothing may run outside the sandbox here",
    );
    operations =
      "apt_install\trequired\t600\tapt-get install -y\nrestart_db\tnone\t60\tsystemctl restart db\n";
    expect((await run({ operation: "sudo", reason: "rg" })).err).toBe(
      "the bypass policy has no operation 'sudo'; it offers: apt_install (apt-get install -y), restart_db (systemctl restart db)",
    );
    expect((await run({ operation: "apt_install", reason: " " })).err).toBe(
      "reason is empty: say why the task needs this",
    );
    expect((await run({ operation: "apt_install", reason: "x", command: "apt-get install" })).err).toMatch(
      /^command must be a list of words/,
    );
    expect(filed).toEqual([]);
  });

  it("files the request as the agent, waits for the decision and the command, and reports both", async () => {
    filed = [];
    decide = { decision: "approved by glenda", status: "exited 0", output: "installed\n" };
    const command = ["apt-get", "install", "-y", "ripgrep"];
    expect(await run({ operation: "apt_install", reason: "search", command })).toEqual({
      out: `bypass request ${requests.length} (apt_install: apt-get install -y ripgrep): approved by glenda; exited 0\noutput:\ninstalled`,
      err: "",
      code: 0,
    });
    expect(filed).toEqual([
      { body: { operation: "apt_install", reason: "search", argv: command }, by: "s1.main" },
    ]);

    decide = { decision: "approved by glenda", status: "exited 100", output: "E: no such package\n" };
    const failed = await run({ operation: "apt_install", reason: "search" });
    expect([failed.code, failed.err]).toEqual([
      1,
      `bypass request ${requests.length} (apt_install: apt-get install -y): approved by glenda; exited 100\noutput:\nE: no such package`,
    ]);

    decide = { decision: "denied by glenda: use grep", status: "denied by glenda: use grep", output: "" };
    const denied = await run({ operation: "apt_install", reason: "search" });
    expect([denied.code, denied.out.split("\n")[0]]).toEqual([
      0,
      `bypass request ${requests.length} (apt_install: apt-get install -y): denied by glenda: use grep`,
    ]);
  });
});
