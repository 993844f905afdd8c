// Makes the checkout ready to run, and says what it is doing: installs the dependencies only when the
// lockfile, the workspace or a package.json changed since the last install, then builds through turbo, whose
// cache skips every package whose sources did not change. Run by `npm test` and `npm run setup`, which build
// everything (the type declarations too, which type checks need); with `--run`, by `npm start`,
// `npm run setup:run` and `npm run demo`, which build what running needs: the JavaScript alone (turbo's
// `build:js`), most of the time a full build takes.
// It runs before anything is installed, so it uses node's own child_process rather than execa.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");
const PNPM = `pnpm@${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1]}`;
const stampFile = join(root, "node_modules", ".ollie-install-stamp");
const say = (line) => process.stderr.write(`setup: ${line}\n`);
/** The turbo task: everything, or (`--run`) what running needs. */
const task = process.argv.includes("--run") ? "build:js" : "build";

/** What an install depends on: the lockfile, the workspace's layout and every package.json in it. */
function installInputs() {
  const hash = createHash("sha256");
  for (const file of ["pnpm-lock.yaml", "pnpm-workspace.yaml", "package.json"])
    hash.update(readFileSync(join(root, file)));
  for (const group of ["packages", "apps", "tests"]) {
    for (const dir of readdirSync(join(root, group)).sort()) {
      const manifest = join(root, group, dir, "package.json");
      if (existsSync(manifest)) hash.update(manifest).update(readFileSync(manifest));
    }
  }
  return hash.digest("hex");
}

async function install() {
  const wanted = installInputs();
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === wanted) return;
  say(
    existsSync(stampFile)
      ? "the dependencies changed; installing them"
      : "installing the dependencies (once)",
  );
  // Run through npx: the first install is the one that puts pnpm into node_modules.
  const child = spawn(
    "npx",
    [
      "-y",
      PNPM,
      "install",
      "--frozen-lockfile",
      "--config.confirmModulesPurge=false",
      "--config.update-notifier=false",
    ],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`pnpm install exited ${code}`);
  writeFileSync(stampFile, wanted);
}

/** Builds what changed, a line per package that turbo has to build; the full log only when one fails. */
async function build() {
  const started = Date.now();
  const bin = join(root, "node_modules", ".bin");
  const turbo = spawn(join(bin, "turbo"), ["run", task, "--output-logs=new-only"], {
    cwd: root,
    // turbo finds pnpm on the PATH; it is installed in node_modules/.bin.
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", PATH: `${bin}:${process.env.PATH}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = once(turbo, "exit");
  // Awaited after the output is read; a failure to start must not go unhandled meanwhile.
  exited.catch(() => {});
  let log = "";
  turbo.stderr.on("data", (chunk) => {
    log += chunk;
  });
  let built = 0;
  let cached = 0;
  for await (const line of createInterface({ input: turbo.stdout })) {
    log += `${line}\n`;
    const done = /^(\S+):(build|build:js): cache (hit|miss)/.exec(line);
    if (done?.[3] === "miss") {
      built++;
      say(`building ${done[1]}${task === "build" ? "" : " (JavaScript)"}`);
    } else if (done) cached++;
  }
  const [code] = await exited;
  if (code !== 0) {
    process.stderr.write(log);
    throw new Error(`the build failed (turbo exited ${code})`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  say(
    built === 0
      ? `up to date (${cached} packages, ${seconds} s)`
      : `built ${built}, ${cached} unchanged (${seconds} s)`,
  );
}

try {
  await install();
  await build();
} catch (error) {
  say(error.message);
  process.exitCode = 1;
}
