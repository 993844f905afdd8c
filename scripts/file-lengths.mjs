// Fails when a source file is longer than MAX_LINES: the check behind CONTRIBUTING's "a file does one thing".
// Run by `npm run lint` and CI (turbo's `lint` depends on the root's `lint:files`).
//
// Source is every tracked TypeScript, JavaScript and C file (`git ls-files`, so build output never counts)
// except tests — `*.test.*`, `__fixtures__/`, the daemons' end-to-end `test/` folders and the consumer test
// project `tests/` — and generated files, which say `@generated` in their first five lines.
//
// It fails rather than warns: a warning in a green run is read by no one, and the files it would have named
// grow until a split is a project of its own. A file that cannot be split yet goes in ALLOWED below, with the
// reason, and the check fails again once it is short enough, so the list only ever shrinks.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";

const MAX_LINES = 400;

/** Files allowed over MAX_LINES for now, each with the reason, until the change that splits it lands. */
const ALLOWED = new Map([]);

const SOURCE = /\.(?:[cm]?[jt]sx?|c|h)$/;
const TEST = [/\.test\.[cm]?[jt]sx?$/, /(?:^|\/)__fixtures__\//, /^apps\/[^/]+\/test\//, /^tests\//];

const root = join(import.meta.dirname, "..");
const { stdout } = await execa("git", ["ls-files", "-z"], { cwd: root });
const files = stdout
  .split("\0")
  .filter((f) => SOURCE.test(f) && !TEST.some((t) => t.test(f)))
  .sort();

const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(join(root, file), "utf8");
  } catch (err) {
    // Deleted in the work tree but not yet from the index: nothing to measure.
    if (err.code === "ENOENT") continue;
    throw err;
  }
  if (/@generated\b/.test(text.split("\n", 5).join("\n"))) continue;
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (ALLOWED.has(file)) {
    if (lines <= MAX_LINES)
      problems.push(`${file}: ${lines} lines, within ${MAX_LINES}: take it off ALLOWED in scripts/file-lengths.mjs`);
  } else if (lines > MAX_LINES) {
    problems.push(`${file}: ${lines} lines, more than ${MAX_LINES}: split it by concern (one thing per file)`);
  }
}
for (const file of ALLOWED.keys())
  if (!files.includes(file)) problems.push(`${file}: on ALLOWED in scripts/file-lengths.mjs but not a source file`);

for (const problem of problems) process.stderr.write(`file-lengths: ${problem}\n`);
if (problems.length > 0) process.exit(1);
process.stdout.write(`file-lengths: ${files.length} source files, none over ${MAX_LINES} lines (${ALLOWED.size} allowed for now)\n`);
