import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockLlmServer } from "@ollie/backends/testing";
import { execa } from "execa";
import { megabytes } from "../install/disk-usage.js";
import {
  AI_SDK,
  installOllie,
  installPublished,
  type Measured,
  MONOREPO,
  OLLIE,
  PI,
  pinned,
} from "../install-size.js";
import { addSummaryRow } from "../stats.js";
import { linesOfCode } from "./lines-of-code.js";
import { EXPECTED, wordCountModel } from "./word-count-script.js";

/**
 * The same program three ways — an agent with one in-process tool (a word counter) that streams its answer —
 * with @ollie/agent-core, pi-agent-core and the AI SDK (agent-core.ts, pi-agent-core.ts, ai-sdk.ts beside
 * this file). Each library is installed with plain npm into an empty project of its own (agent-core from the
 * tarballs this checkout packs, the others from the registry at the versions this package pins: see
 * ../install-size.ts), its program is copied there and run against one mock OpenAI-compatible server, and
 * must print the answer built from its tool's result. Printed: each program's lines of code (neither blank
 * nor comment) and its install's packages and bytes on disk.
 *
 *   node --import tsx bench/three-ways/run.ts
 */

interface Way {
  name: string;
  program: string;
  install: (work: string) => Promise<Measured>;
}

const WAYS: Way[] = [
  {
    name: "@ollie/agent-core",
    program: "agent-core.ts",
    install: (work) => installOllie(MONOREPO, work, "agent-core", OLLIE.join(" ")),
  },
  {
    name: `pi-agent-core ${pinned("@mariozechner/pi-agent-core")}`,
    program: "pi-agent-core.ts",
    install: (work) => installPublished(PI, work, "pi"),
  },
  {
    name: `AI SDK (ai ${pinned("ai")})`,
    program: "ai-sdk.ts",
    install: (work) => installPublished(AI_SDK, work, "ai"),
  },
];

// The programs are TypeScript, run as a user of tsx runs them, resolving their imports in their project.
const TSX = import.meta.resolve("tsx");

interface Result extends Way {
  lines: number;
  installed: Measured;
  printed: string;
}

async function runAll(work: string): Promise<Result[]> {
  const results: Result[] = [];
  for (const way of WAYS) {
    console.error(`installing ${way.name}…`);
    results.push({
      ...way,
      lines: linesOfCode(join(import.meta.dirname, way.program)),
      installed: await way.install(work),
      printed: "",
    });
  }
  const server = await MockLlmServer.start({ replies: wordCountModel });
  try {
    for (const r of results) {
      const program = join(r.installed.dir, r.program);
      copyFileSync(join(import.meta.dirname, r.program), program);
      const run = await execa(process.execPath, ["--import", TSX, program], {
        cwd: r.installed.dir,
        // The mock asks for no key; pi-agent-core insists on one, which it takes from the environment.
        env: { OPENAI_BASE_URL: server.baseUrl("openai"), OPENAI_API_KEY: "sk-mock" },
        timeout: 60_000,
        reject: false,
      });
      r.printed = run.stdout.trim();
      if (run.exitCode !== 0) console.error(`${r.program} failed:\n${run.stderr}`);
    }
  } finally {
    await server.close();
  }
  return results;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "ollie-three-ways-"));
  try {
    const results = await runAll(work);
    console.log(
      `The same program three ways — an agent with one in-process tool, streaming its answer — against one mock server:\n`,
    );
    console.log("| npm i | program | lines of code | answer | packages | on disk |");
    console.log("| --- | --- | ---: | --- | ---: | ---: |");
    for (const r of results) {
      const ok = r.printed === EXPECTED ? "right" : `wrong: ${JSON.stringify(r.printed)}`;
      const { label, packages, bytes } = r.installed;
      console.log(`| ${label} | ${r.program} | ${r.lines} | ${ok} | ${packages} | ${megabytes(bytes)} |`);
    }
    const asked = results.flatMap((r) => r.installed.scopeRequests);
    if (asked.length > 0) console.log(`\nnpm asked the registry for @ollie packages: ${asked.join(", ")}`);
    const [ours, ...others] = results as [Result, ...Result[]];
    const shortest = others.every((o) => ours.lines < o.lines);
    const lightest = others.every((o) => ours.installed.bytes < o.installed.bytes);
    const baseline = (o: Result) => `${o.name} ${o.lines} lines, ${megabytes(o.installed.bytes)}`;
    addSummaryRow({
      order: 7,
      measure:
        "the same agent program (one in-process tool, streamed answer): lines of code; npm install on disk",
      ours: `${ours.lines} lines, ${megabytes(ours.installed.bytes)}`,
      baseline: others.map(baseline).join("; "),
      goal: "the shortest program and the lightest install",
      met: shortest && lightest,
    });
    if (results.some((r) => r.printed !== EXPECTED)) {
      console.error("a program did not print the answer its tool's result makes");
      process.exitCode = 1;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await main();
