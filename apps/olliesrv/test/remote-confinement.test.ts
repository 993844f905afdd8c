import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";
import { SSHD, startSshd, type TestSshd } from "./sshd.js";

/**
 * A remote session's tools are confined as a local session's are. The "host" is this machine reached through
 * a real sshd, so the owner key of the daemon here sits on the host's disk too, as it would with
 * `remote=localhost`; the host's sessions get a TMPDIR, configuration and data homes of their own. The
 * daemon runs a fresh install: no tools/ and no sandbox policy, only backends.conf and remote.yaml.
 */
let sshd: TestSshd;
let o: Ollie;
let remoteData: string;
let remoteWork: string;
const uid = userInfo().uid;

beforeAll(async () => {
  if (!SSHD) return;
  sshd = await startSshd();
  remoteData = join(sshd.dir, "data");
  remoteWork = join(sshd.dir, "work");
  mkdirSync(remoteWork);
  o = await startOllie("olliesrv-remote-confined-", {
    setup: (configDir) =>
      writeFileSync(
        join(configDir, "remote.yaml"),
        `hosts:\n  "*":\n    ssh_options: ["-F", "${sshd.configFile}"]\n    data_dir: ${remoteData}\n`,
      ),
  });
});

afterAll(async () => {
  await o?.stop();
  await o?.remove();
  await sshd?.stop();
});

/**
 * Has the coding agent of a new session made from `spec` (its `cwd=` or `remote=`) run `command` in a
 * shell; returns its uname and what the call answered.
 */
async function shellIn(spec: string, command: string): Promise<{ uname: string; said: string }> {
  const id = await o.create(`agent=coding ${spec}`);
  const agent = `session/${id}/agent/main`;
  o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command } }] }, { text: "Done." });
  await prompt(o, agent, "Run it");
  const history = JSON.parse(await o.read(`${agent}/context`)) as { role: string; content: string }[];
  return { uname: `${id}.main`, said: history.findLast((m) => m.role === "tool")!.content };
}

const here = (dir: string) => `cwd=${dir}`;
const there = (dir: string) => `remote=${sshd.destination}:${dir}`;
const HASH = /^[0-9a-f]{32}$/;

// Each start on the host is several ssh sessions, each running the remote user's shell start-up files.
describe.skipIf(!SSHD)("a remote session's tools", { timeout: 90_000 }, () => {
  it("run on a fresh install, whose configuration bundle is bundle.json alone", async () => {
    for (const name of ["tools", "sandbox.yaml", "sandbox"])
      expect(existsSync(join(o.root, "config", "ollie", name))).toBe(false);
    const { said } = await shellIn(there(remoteWork), "echo made there > there.txt; cat there.txt");
    expect(said).toContain("made there");
    expect(readFileSync(join(remoteWork, "there.txt"), "utf8")).toBe("made there\n");
    const bundles = readdirSync(join(remoteData, "bundles")).filter((n) => HASH.test(n));
    const contents = bundles.map((hash) => readdirSync(join(remoteData, "bundles", hash)).sort());
    // toolsrv's packages, and the user's (empty) configuration.
    expect(contents).toHaveLength(2);
    expect(contents).toContainEqual(["bundle.json"]);
  });

  it("meet the same refusals there as here: no owner key, no shared /tmp, a TMPDIR of their own", async () => {
    const shared = `/tmp/ollie-escape-${randomUUID()}`;
    const command = `cat ${o.keyFile}; echo out > ${shared}; echo mine > "$TMPDIR/mine"; echo "TMPDIR=$TMPDIR"`;
    const runs = [
      { ...(await shellIn(here(o.work), command)), tmpRoot: join(o.env.TMPDIR!, `ollie-${uid}`) },
      { ...(await shellIn(there(remoteWork), command)), tmpRoot: join(sshd.env.TMPDIR, `ollie-${uid}`) },
    ];
    for (const { said, uname, tmpRoot } of runs) {
      const tmp = join(tmpRoot, uname);
      expect(said).not.toContain(o.ownerKey());
      expect(said).toContain(`cat: ${o.keyFile}: Permission denied`);
      expect(said).toContain(`${shared}: Permission denied`);
      expect(said).toContain(`TMPDIR=${tmp}\n`);
      expect(readFileSync(join(tmp, "mine"), "utf8")).toBe("mine\n");
      expect([statSync(tmpRoot).mode & 0o777, statSync(tmp).mode & 0o777]).toEqual([0o700, 0o700]);
    }
    expect(existsSync(shared)).toBe(false);
  });

  it("are refused, there as here, a directory that holds the owner key or what olliesrv trusts", async () => {
    const keys = dirname(o.keyFile);
    const conf = join(o.root, "config");
    // Where the bundles for hosts are staged here (made by the first remote start already).
    const staged = join(o.env.XDG_CACHE_HOME!, "ollie", "remote");
    mkdirSync(staged, { recursive: true });
    const refusals: [string, string][] = [
      [keys, `filesystem.rw grants '${keys}', which holds the protected path '${o.keyFile}'`],
      [
        conf,
        `filesystem.rw grants '${conf}', which holds the protected path '${join(conf, "ollie", "backends.conf")}'`,
      ],
      [staged, `filesystem.rw grants '${staged}', which is the protected path '${staged}'`],
    ];
    for (const [dir, refusal] of refusals) {
      for (const where of [here, there]) {
        const { said } = await shellIn(where(dir), "ls");
        expect(said, where(dir)).toContain(`shell could not start: ${refusal}`);
      }
    }
  });

  it("are refused the host's own Ollie files and the toolsrv bundles there", async () => {
    const hostConfig = sshd.env.XDG_CONFIG_HOME;
    const hostData = sshd.env.XDG_DATA_HOME;
    const bundles = join(remoteData, "bundles");
    const [bundle] = readdirSync(bundles).filter((n) => HASH.test(n));
    const inBundle = join(bundles, bundle!);
    const refusals: [string, string][] = [
      [hostConfig, `grants '${hostConfig}', which holds the protected path '${join(hostConfig, "ollie")}'`],
      [hostData, `grants '${hostData}', which holds the protected path '${join(hostData, "ollie")}'`],
      [inBundle, `grants '${inBundle}', which lies inside the protected path '${bundles}'`],
      [remoteData, `grants '${remoteData}', which holds the protected path '${join(remoteData, "run")}'`],
    ];
    for (const [dir, refusal] of refusals) {
      const { said } = await shellIn(there(dir), "echo written > mine.txt");
      expect(said, dir).toContain(`shell could not start: filesystem.rw ${refusal}`);
      expect(existsSync(join(dir, "mine.txt"))).toBe(false);
    }
  });
});
