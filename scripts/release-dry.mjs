// `npm run release:dry`: the release, short of uploading. In a scratch worktree of HEAD (the checkout itself
// is never touched) it runs `changeset version`, then `pnpm publish -r --dry-run`, which runs every
// package's prepack build and packs it as the registry would receive it. It prints what would be published
// and fails when a package would not be, or when a build, a pack or a publish check fails.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

const root = join(import.meta.dirname, "..");
const pnpm = [
  "-y",
  `pnpm@${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1]}`,
];
const scratch = join(mkdtempSync(join(tmpdir(), "ollie-release-")), "ollie");
// A release builds every launcher (OLLIE_RELEASE): a platform package without its binary is never published.
const run = async (command, args, cwd = scratch) => {
  console.log(`$ ${command} ${args.join(" ")}`);
  const { stdout } = await execa(command, args, { cwd, stderr: "inherit", env: { OLLIE_RELEASE: "1" } });
  return stdout;
};

const manifests = () =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(scratch, group)).map((dir) =>
      JSON.parse(readFileSync(join(scratch, group, dir, "package.json"), "utf8")),
    ),
  );

try {
  await run("git", ["worktree", "add", "--detach", scratch, "HEAD"], root);
  await run("npx", [...pnpm, "install", "--frozen-lockfile", "--prefer-offline"]);
  const before = new Map(manifests().map((m) => [m.name, m.version]));
  await run("npx", [...pnpm, "exec", "changeset", "version"]);
  const published = await run("npx", [
    ...pnpm,
    "publish",
    "-r",
    "--dry-run",
    "--no-git-checks",
    "--report-summary",
  ]);
  console.log(published);
  const summary = JSON.parse(readFileSync(join(scratch, "pnpm-publish-summary.json"), "utf8"));
  const publishedNames = new Set(summary.publishedPackages.map((p) => p.name));
  const publishable = manifests().filter((m) => !m.private);
  console.log("\nwould publish:");
  for (const m of publishable) console.log(`  ${m.name} ${before.get(m.name)} -> ${m.version}`);
  const missing = publishable.filter((m) => !publishedNames.has(m.name)).map((m) => m.name);
  if (missing.length > 0) throw new Error(`not published by the dry run: ${missing.join(", ")}`);
} finally {
  await execa("git", ["worktree", "remove", "--force", scratch], { cwd: root, reject: false });
  // A worktree left by an interrupted run is forgotten too.
  await execa("git", ["worktree", "prune"], { cwd: root, reject: false });
  rmSync(join(scratch, ".."), { recursive: true, force: true });
}
