import { access, copyFile, readFile, readlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { BackendPool, type Profile, parseBackendsConf } from "@ollie/backends";
import { type OllieClient, RefusedError } from "@ollie/client";
import { writeFileAtomic } from "@ollie/config-file";
import { answered, type CheckStatus, checkBackend, verdict } from "../config/backend-check.js";
import { type TemplateProfile, turnOn } from "../config/backends-template.js";
import { olliePaths } from "../paths.js";
import { type BackendRow, type DaemonView, daemonView, rowOf, runningDaemon } from "./backends-command.js";
import { INIT_USAGE, type InitInvocation, providerList, SIGN_IN, template } from "./init-args.js";

/**
 * `ollie init`: writes the user's backends.conf, makes a running olliesrv read it (`reload`)
 * and checks the backend — through olliesrv when it runs and reads this file, since its environment holds
 * the keys it uses, else here. Works without olliesrv, but not with one that refuses to attach it (nothing
 * is written then). A backends.conf that is a symbolic link is written through: its target gets the text.
 * An existing file is kept unless --force, or unless it holds only the offline demo.
 * 0 when the backend answers (or --no-check), 1 otherwise.
 */
export async function initCommand(
  invocation: InitInvocation,
  reach: () => Promise<OllieClient>,
): Promise<number> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const fail = (line: string) => {
    process.stderr.write(`ollie: ${line}\n`);
    return 1;
  };
  const chosen = invocation.profile;
  if (invocation.help || !chosen) {
    process.stdout.write(`${INIT_USAGE}\n${providerList()}`);
    return 0;
  }
  const file = join(olliePaths().config, "backends.conf");
  const text = turnOn(template(), chosen, invocation.choices);
  const profile = parseBackendsConf(text, file).profiles.get(chosen.section)!;
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  // What `ollie init demo` wrote is there to be replaced by a real backend: no --force needed (still kept).
  if (exists && !invocation.force && !(await demoOnly(file)))
    return fail(
      `${file} exists; 'ollie init --force ${chosen.provider} …' replaces it (keeping it as backends.conf.bak)`,
    );
  // Before anything is written: an olliesrv that runs but refuses this attach is a mistake to say now.
  const client = await runningDaemon(reach);
  try {
    const target = await linkTarget(file);
    if (exists) await copyFile(file, `${file}.bak`);
    await writeFileAtomic(target, text);
    const where = target === file ? file : `${target} (${file} links to it)`;
    say(
      `wrote ${where}${exists ? ` (the old one is ${file}.bak)` : ""}: [${profile.name}], the default: ${describe(profile)}`,
    );
    const key = keyLine(profile);
    if (key) say(key);
    if (profile.type === "demo") say(DEMO_NEXT);

    let daemon: DaemonView | undefined;
    if (!client) say("olliesrv is not running: it reads the file when it starts");
    else {
      try {
        await client.reload();
      } catch (error) {
        // olliesrv's words begin with the command they answer.
        const why =
          error instanceof RefusedError ? error.reason.replace(/^reload: /, "") : (error as Error).message;
        return fail(`olliesrv could not read it: ${why}`);
      }
      daemon = invocation.check ? await daemonView(client) : undefined;
      if (daemon && daemon.file !== file) {
        say(`olliesrv reads ${daemon.file}, not this file: it runs with another $XDG_CONFIG_HOME`);
        // Its view is of another file: this one is checked here.
        daemon = undefined;
      } else say("olliesrv uses it from now on: no restart needed");
    }
    if (!invocation.check) return 0;

    const row: BackendRow | undefined = daemon
      ? daemon.rows.find((r) => r.name === profile.name)
      : rowOf(await checkBackend(new BackendPool(parseBackendsConf(text, file)), profile.name));
    if (row === undefined) return fail(`olliesrv does not list [${profile.name}]`);
    const by = daemon ? " (asked by olliesrv)" : "";
    if (answered(row.status)) {
      say(`[${profile.name}] answers${by}: ${row.detail}`);
      if (row.status === "no-model") say(nextStep(row.status, profile, chosen));
      return 0;
    }
    return fail(
      `[${profile.name}] did not answer${by}: ${verdict(row.status, row.detail)}\n  ${nextStep(row.status, profile, chosen)}`,
    );
  } finally {
    client?.close();
  }
}

/** Whether `file` holds only demo profiles (what `ollie init demo` writes); false when it cannot be read. */
async function demoOnly(file: string): Promise<boolean> {
  try {
    const profiles = [...parseBackendsConf(await readFile(file, "utf8"), file).profiles.values()];
    return profiles.length > 0 && profiles.every((p) => p.type === "demo");
  } catch {
    return false;
  }
}

/**
 * Where writing `file` should go: `file` itself, or — when it is a symbolic link (to a dotfiles repository,
 * say) — the file the link leads to, which need not exist yet. Writing there keeps the link a link.
 */
async function linkTarget(file: string): Promise<string> {
  let path = file;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      link = await readlink(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EINVAL" || code === "ENOENT") return path;
      throw error;
    }
    path = resolve(dirname(path), link);
  }
  throw new Error(`${file}: too many levels of symbolic links`);
}

/** What `ollie init demo` leads to: trying it, then a real backend. */
const DEMO_NEXT =
  "the demo is a script, not a model: it runs one real tool call and answers from it. Try 'ollie ask what is here' or 'ollie sh'; then 'ollie init anthropic' (or another provider: 'ollie init' lists them) for a real model";

/** A profile in a few words: type, where, model. */
function describe(profile: Profile): string {
  return `${profile.type}${profile.url ? ` at ${profile.url}` : ""}, model ${profile.model}`;
}

/** Where the key comes from, and whether this shell has it. */
function keyLine(profile: Profile): string | undefined {
  const c = profile.credential;
  if (c.kind === "none") {
    const signIn = SIGN_IN[profile.type];
    return signIn ? `no key: ${signIn}` : "no key needed";
  }
  if (c.kind === "command")
    return `the key is what \`${c.command}\` prints (olliesrv runs it when it needs the key)`;
  if (c.kind === "literal") return "the key is in the file";
  const set = process.env[c.variable] ? "set in this shell" : "not set in this shell";
  return `the key is read from $${c.variable} in olliesrv's environment (${set})`;
}

/** What to do about a check that did not come out `ok`. */
function nextStep(status: CheckStatus, profile: Profile, chosen: TemplateProfile): string {
  const again = `then 'ollie init --force ${chosen.provider} …' again, or edit the file`;
  // Without a key of its own, the profile uses the sign-in: signing in is all it takes.
  if (
    (status === "no-key" || status === "key-refused") &&
    profile.credential.kind === "none" &&
    SIGN_IN[profile.type]
  )
    return `sign in with 'ollie login ${profile.type}' (olliesrv needs no restart), then 'ollie backends' checks it`;
  switch (status) {
    case "no-answer":
      return profile.type === "ollama"
        ? `start Ollama ('ollama serve', then 'ollama pull ${profile.model}') or give its address with --url; olliesrv needs nothing more`
        : `check the address (--url) and the network; ${again}`;
    case "no-key":
      if (profile.credential.kind === "env")
        return `export ${profile.credential.variable}=… where olliesrv starts (and restart it), or use --key-cmd 'COMMAND' to have olliesrv run a command that prints the key; ${again}`;
      return `check the key; ${again}`;
    case "key-refused":
      return `check the key; ${again}`;
    case "no-model":
      return `it does not list ${profile.model}: pick one of its models with --model, ${again}`;
    default:
      return again;
  }
}
