import {
  appendFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { ShadowRepo } from "../src/checkpoints/shadow-repo.js";

/**
 * What a checkpoint costs, against what git costs for the same change in an ordinary repository — in the
 * same run, interleaved:
 *
 *   ours:     `ShadowRepo.record` of a 10,000-file tree (source-like files in nested directories, a few MB)
 *             after 3 files changed, through the shadow repository under a data directory;
 *   baseline: `git add -A && git commit -q` of the same change in a copy of the tree that is a plain git
 *             repository (two git commands, started the same way).
 *
 * Each measures its time and what its repository grew on disk (allocated blocks, and bytes). Then a
 * checkpoint of an unchanged tree, against `git add -A && git commit -q` finding nothing to commit, and
 * the first checkpoint of the whole tree against the first commit. Both repositories have automatic gc off. BENCH_ROUNDS rounds (default 5) of
 * BENCH_CHANGES changes each (default 6).
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 6);
const FILES = 10_000;
const WARMUP = 2;

/** A small deterministic generator, so that every run builds the same tree and makes the same changes. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(42);
const pick = (n: number) => Math.floor(rand() * n);

/** A source file of a few lines, like the ones agents edit. */
function sourceFile(name: string): string {
  const lines = [`// ${name}`, `import { helper${pick(100)} } from "../shared/helpers.js";`, ""];
  const functions = 1 + pick(4);
  for (let f = 0; f < functions; f++) {
    lines.push(`export function ${name.replace(/\W/g, "_")}_${f}(input: number): number {`);
    for (let i = 0, n = 1 + pick(5); i < n; i++)
      lines.push(`  const v${i} = helper${pick(100)}(input * ${pick(997)});`);
    lines.push(`  return input + ${pick(10_000)};`, "}", "");
  }
  return lines.join("\n");
}

/** 25 packages × 4 modules × (a module and its `impl/`) × 50 files. */
function buildTree(root: string): string[] {
  const paths: string[] = [];
  for (let p = 0; p < 25; p++)
    for (let m = 0; m < 4; m++)
      for (const sub of ["", "impl/"])
        for (let f = 0; f < FILES / 200; f++) paths.push(`packages/pkg${p}/src/mod${m}/${sub}file${f}.ts`);
  for (const path of paths) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), sourceFile(path));
  }
  writeFileSync(join(root, ".gitignore"), "node_modules/\ndist/\n");
  return paths;
}

/** Bytes under `dir`: allocated on disk (du, directories included) and in its files. */
function diskUse(dir: string): { allocated: number; apparent: number } {
  let allocated = 0;
  let apparent = 0;
  const walk = (path: string) => {
    const st = lstatSync(path);
    allocated += st.blocks * 512;
    if (!st.isDirectory()) apparent += st.size;
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return { allocated, apparent };
}

const scratch = mkdtempSync(join(tmpdir(), "ollie-checkpoint-bench-"));
try {
  const tree = join(scratch, "tree");
  const copy = join(scratch, "copy");
  const dataDir = join(scratch, "data");
  mkdirSync(tree);
  const paths = buildTree(tree);
  cpSync(tree, copy, { recursive: true });
  const treeBytes = diskUse(tree);

  const gitEnv = {
    PATH: process.env.PATH,
    HOME: scratch,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.com",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.com",
  };
  const git = (args: string[]) =>
    execa("git", args, { cwd: copy, env: gitEnv, extendEnv: false, reject: false, stdin: "ignore" });
  await git(["init", "-q"]);
  // No gc in the background of a commit: it would run into the next measurements (the shadow repository
  // has none either).
  await git(["config", "gc.auto", "0"]);
  const dotGit = join(copy, ".git");

  const repo = await ShadowRepo.open({ dataDir, directory: tree });
  const owner = "bench/main";

  const ours = async () => {
    const before = diskUse(repo.gitDir);
    const start = performance.now();
    const recorded = await repo.record(owner);
    const ms = performance.now() - start;
    const after = diskUse(repo.gitDir);
    return {
      ms,
      created: recorded.created,
      allocated: after.allocated - before.allocated,
      apparent: after.apparent - before.apparent,
    };
  };
  const baseline = async () => {
    const before = diskUse(dotGit);
    const start = performance.now();
    const add = await git(["add", "-A"]);
    if (add.exitCode !== 0) throw new Error(`git add: ${add.stderr}`);
    const commit = await git(["commit", "-q", "-m", "change"]);
    const ms = performance.now() - start;
    const after = diskUse(dotGit);
    return {
      ms,
      created: commit.exitCode === 0,
      allocated: after.allocated - before.allocated,
      apparent: after.apparent - before.apparent,
    };
  };

  /** Changes 3 files the same way in both trees: a line added to one, a line changed in two. */
  let changeCount = 0;
  const change = () => {
    changeCount++;
    for (let i = 0; i < 3; i++) {
      const path = paths[pick(paths.length)]!;
      const text = sourceFile(path).replace(
        /return input \+ \d+;/,
        `return input + ${changeCount * 10 + i};`,
      );
      const content = i === 0 ? `${text}// change ${changeCount}\n` : text;
      writeFileSync(join(tree, path), content);
      writeFileSync(join(copy, path), content);
    }
  };

  const first = { ours: await ours(), baseline: await baseline() };

  type Sample = Awaited<ReturnType<typeof ours>>;
  const changed = { ours: [] as Sample[], baseline: [] as Sample[] };
  const unchanged = { ours: [] as Sample[], baseline: [] as Sample[] };
  console.log(
    `checkpoint cost (node ${process.version}, ${FILES.toLocaleString("en")} files, ${(treeBytes.apparent / 1e6).toFixed(1)} MB; ${ROUNDS} rounds of ${CHANGES} changes of 3 files, interleaved)\n`,
  );
  for (let round = 0; round <= ROUNDS; round++) {
    const times = { ours: [] as number[], baseline: [] as number[] };
    for (let i = 0; i < (round === 0 ? WARMUP : CHANGES); i++) {
      change();
      // A different one first each time, so that neither always runs in what the other left behind.
      let o: Sample;
      let b: Sample;
      if (i % 2 === 0) {
        o = await ours();
        b = await baseline();
      } else {
        b = await baseline();
        o = await ours();
      }
      if (!o.created || !b.created) throw new Error("a change was not recorded");
      if (round === 0) continue;
      changed.ours.push(o);
      changed.baseline.push(b);
      times.ours.push(o.ms);
      times.baseline.push(b.ms);
    }
    const same = { ours: await ours(), baseline: await baseline() };
    if (same.ours.created || same.baseline.created) throw new Error("an unchanged tree was recorded");
    if (round === 0) continue;
    unchanged.ours.push(same.ours);
    unchanged.baseline.push(same.baseline);
    console.log(
      `round ${round}: checkpoint ${median(times.ours).toFixed(1)} ms, git add+commit ${median(times.baseline).toFixed(1)} ms (medians); unchanged ${same.ours.ms.toFixed(1)} ms against ${same.baseline.ms.toFixed(1)} ms`,
    );
  }

  const ms = (xs: number[]) => `${min(xs).toFixed(1)} / ${median(xs).toFixed(1)} ms`;
  const kib = (xs: number[]) => `${(min(xs) / 1024).toFixed(1)} / ${(median(xs) / 1024).toFixed(1)} KiB`;
  /** A row of the table: a figure of each sample of both ways, its min / median each, and their ratio. */
  const compared = (
    measure: string,
    samples: { ours: Sample[]; baseline: Sample[] },
    figure: (s: Sample) => number,
    format: (xs: number[]) => string,
  ): [string, string, string, number] => {
    const [o, b] = [samples.ours.map(figure), samples.baseline.map(figure)];
    return [measure, format(o), format(b), median(o) / median(b)];
  };
  const rows: [string, string, string, number][] = [
    compared("a checkpoint after 3 files changed", changed, (s) => s.ms, ms),
    compared("disk added by it (allocated)", changed, (s) => s.allocated, kib),
    compared("bytes of files added by it", changed, (s) => s.apparent, kib),
    compared("a checkpoint of an unchanged tree", unchanged, (s) => s.ms, ms),
    [
      "the first checkpoint of the tree",
      `${first.ours.ms.toFixed(0)} ms`,
      `${first.baseline.ms.toFixed(0)} ms`,
      first.ours.ms / first.baseline.ms,
    ],
    [
      "disk of the first (allocated)",
      `${(first.ours.allocated / 1e6).toFixed(1)} MB`,
      `${(first.baseline.allocated / 1e6).toFixed(1)} MB`,
      first.ours.allocated / first.baseline.allocated,
    ],
  ];
  console.log(
    `\n| measure (${changed.ours.length} changes, ${unchanged.ours.length} unchanged) | checkpoint (min / median) | git add -A && git commit -q (min / median) | ratio (medians) |`,
  );
  console.log("| --- | --- | --- | --- |");
  for (const [measure, o, b, ratio] of rows)
    console.log(`| ${measure} | ${o} | ${b} | ${ratio.toFixed(2)} |`);

  // Rows of the table `npm run bench` ends with (scripts/bench.mjs).
  const summary = process.env.OLLIE_BENCH_SUMMARY;
  if (summary) {
    const row = (
      order: number,
      measure: string,
      [, o, b, ratio]: (typeof rows)[number],
      goal: string,
      limit: number,
    ) =>
      appendFileSync(
        summary,
        `${JSON.stringify({ order, measure, ours: o, baseline: b, ratio: `${ratio.toFixed(2)}× (medians)`, goal, met: ratio <= limit })}\n`,
      );
    row(
      8,
      "checkpoint of a 10,000-file tree after 3 files changed vs `git add -A && git commit -q` of a copy (min / median)",
      rows[0]!,
      "≤ 1.25×",
      1.25,
    );
    row(
      9,
      "bytes of files a checkpoint adds to the shadow repository vs what the commit adds to .git (min / median)",
      rows[2]!,
      "≤ 1.25×",
      1.25,
    );
    row(
      10,
      "checkpoint of the unchanged tree vs `git add -A && git commit -q` finding nothing (min / median)",
      rows[3]!,
      "≤ 1×",
      1,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function min(xs: number[]): number {
  return Math.min(...xs);
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((x, y) => x - y);
  const m = sorted.length >> 1;
  return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}
