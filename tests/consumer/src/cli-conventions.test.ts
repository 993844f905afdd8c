import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, inject, it } from "vitest";
import { projectAt } from "./consumer-project.js";
import { pasteIntoBash } from "./interactive-bash.js";
import { MONOREPO } from "./pack-workspace.js";
import { readerShell } from "./reader-shell.js";

interface Row {
  binary: string;
  packageName: string;
  flags: string[];
  noArguments: string;
  /** A command line, as a reader pastes it into a shell. */
  failingCall: string;
}

/** The binaries' table in CONTRIBUTING.md, the one place their conventions are written down. */
function conventionsTable(): Row[] {
  const text = readFileSync(join(MONOREPO, "CONTRIBUTING.md"), "utf8");
  const section = text.slice(text.indexOf("## Command-line conventions"));
  const rows = section.split("\n").filter((line) => /^\| `[a-z-]+` \|/.test(line));
  return rows.map((line) => {
    const cells = line.split(" | ").map((c) => c.replace(/^\| |\|$/g, "").trim());
    const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    return {
      binary: code(cells[0]!)[0]!,
      packageName: cells[1]!,
      flags: code(cells[2]!),
      noArguments: cells[3]!,
      failingCall: code(cells[4]!)[0]!,
    };
  });
}

const table = conventionsTable();

describe.each(table)("$binary, installed, as CONTRIBUTING.md says", (row) => {
  const project = () => projectAt(inject("consumerDir"));
  const run = (args: string[]) => {
    const p = project();
    return execa(p.bin(row.binary), args, {
      cwd: p.dir,
      env: p.env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
  };
  const version = () =>
    JSON.parse(readFileSync(join(project().dir, "node_modules", row.packageName, "package.json"), "utf8"))
      .version;

  it("prints its usage on stdout for --help and -h, exit 0, naming every flag of the table", async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await run([flag]);
      expect(r, flag).toMatchObject({ exitCode: 0, stderr: "" });
      expect(r.stdout).toMatch(new RegExp(`^usage: ${row.binary} `));
      for (const documented of row.flags) {
        const asWord = new RegExp(`(^|[\\s\\[,])${documented}\\b`, "m");
        expect(r.stdout, `${documented} in --help`).toMatch(asWord);
      }
    }
  });

  it("prints its package's version for --version, exit 0", async () => {
    expect(await run(["--version"])).toMatchObject({ exitCode: 0, stdout: version(), stderr: "" });
  });

  it("names an unknown option and prints its usage on stderr (or where it is), exit 2", async () => {
    const r = await run(["--no-such-option"]);
    expect(r).toMatchObject({ exitCode: 2, stdout: "" });
    expect(r.stderr).toMatch(
      new RegExp(
        `^${row.binary}: .*no-such-option.*\\n((.|\\n)*usage: ${row.binary} |try '${row.binary} --help' for the usage$)`,
      ),
    );
  });

  it.runIf(row.noArguments.startsWith("usage"))(
    "without arguments prints its usage on stderr, exit 2",
    async () => {
      const r = await run([]);
      expect(r).toMatchObject({ exitCode: 2, stdout: "" });
      expect(r.stderr).toMatch(new RegExp(`^${row.binary}: .+\\n(.|\\n)*usage: ${row.binary} `));
    },
  );

  it(`exits 1 with the reason for a failing call, pasted into a shell (${row.failingCall})`, async () => {
    expect(row.failingCall.split(" ")[0]).toBe(row.binary);
    const r = await pasteIntoBash(`${row.failingCall}\n`, readerShell(project(), "cli-conventions")).end();
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${row.binary}: \\S`));
  });
});

it("CONTRIBUTING.md's table lists all five binaries", () => {
  expect(table.map((r) => r.binary).sort()).toEqual([
    "ninep",
    "ollie",
    "ollie-sandbox",
    "olliesrv",
    "toolsrv",
  ]);
});
