import { access, copyFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@ollie/agent-core";
import { BackendPool, type Profile, parseBackendsConf } from "@ollie/backends";
import { checkBackend, verdict } from "../config/backend-check.js";
import { type TemplateProfile, turnOn } from "../config/backends-template.js";
import { olliePaths } from "../paths.js";
import { type DaemonView, daemonView } from "./backends-command.js";
import { INIT_USAGE, type InitInvocation, providerList, template } from "./init-args.js";
import type { SessionClient } from "./session-client.js";

/**
 * `ollie init`: writes the user's backends.conf, makes a running olliesrv read it (the root ctl's `reload`)
 * and checks the backend — through olliesrv when it runs, since its environment holds the keys it uses,
 * else here. Works without olliesrv. 0 when the backend answers (or --no-check), 1 otherwise.
 */
export async function initCommand(
  invocation: InitInvocation,
  reach: () => Promise<SessionClient>,
): Promise<number> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const fail = (line: string) => {
    process.stderr.write(`ollie: ${line}\n`);
    return 1;
  };
  const chosen = invocation.profile;
  if (!chosen) {
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
  if (exists && !invocation.force)
    return fail(
      `${file} exists; 'ollie init --force ${chosen.provider} …' replaces it (keeping it as backends.conf.bak)`,
    );
  if (exists) await copyFile(file, `${file}.bak`);
  await writeFileAtomic(file, text);
  say(
    `wrote ${file}${exists ? ` (the old one is ${file}.bak)` : ""}: [${profile.name}], the default: ${describe(profile)}`,
  );
  const key = keyLine(profile);
  if (key) say(key);

  let daemon: DaemonView | undefined;
  let client: SessionClient | undefined;
  try {
    client = await reach();
  } catch {
    say("olliesrv is not running: it reads the file when it starts");
  }
  try {
    if (client) {
      try {
        await client.write("ctl", "reload\n");
      } catch (error) {
        return fail(`olliesrv could not read it: ${(error as Error).message.replace(/^ctl: reload: /, "")}`);
      }
      daemon = invocation.check ? await daemonView(client) : undefined;
      if (daemon && daemon.file !== file)
        say(`olliesrv reads ${daemon.file}, not this file: it runs with another $XDG_CONFIG_HOME`);
      else say("olliesrv uses it from now on: no restart needed");
    }
  } finally {
    client?.close();
  }
  if (!invocation.check) return 0;

  const answer = daemon
    ? daemon.rows.find((r) => r.name === profile.name)?.verdict
    : verdict(await checkBackend(new BackendPool(parseBackendsConf(text, file)), profile.name));
  if (answer === undefined) return fail(`olliesrv does not list [${profile.name}]`);
  const by = daemon ? " (asked by olliesrv)" : "";
  if (answer.startsWith("ok")) {
    say(`[${profile.name}] answers${by}: ${answer.slice("ok: ".length)}`);
    const missing = answer.includes(", but not ") ? nextStep(answer, profile, chosen) : undefined;
    if (missing) say(missing);
    return 0;
  }
  return fail(`[${profile.name}] did not answer${by}: ${answer}\n  ${nextStep(answer, profile, chosen)}`);
}

/** A profile in a few words: type, where, model. */
function describe(profile: Profile): string {
  return `${profile.type}${profile.url ? ` at ${profile.url}` : ""}, model ${profile.model}`;
}

/** Where the key comes from, and whether this shell has it. */
function keyLine(profile: Profile): string | undefined {
  const c = profile.credential;
  if (c.kind === "none") return "no key needed";
  if (c.kind === "command")
    return `the key is what \`${c.command}\` prints (olliesrv runs it when it needs the key)`;
  if (c.kind === "literal") return "the key is in the file";
  const set = process.env[c.variable] ? "set in this shell" : "not set in this shell";
  return `the key is read from $${c.variable} in olliesrv's environment (${set})`;
}

/** What to do about a check's verdict. */
function nextStep(answer: string, profile: Profile, chosen: TemplateProfile): string {
  const again = `then 'ollie init --force ${chosen.provider} …' again, or edit the file`;
  if (answer.startsWith("no answer"))
    return profile.type === "ollama"
      ? `start Ollama ('ollama serve', then 'ollama pull ${profile.model}') or give its address with --url; olliesrv needs nothing more`
      : `check the address (--url) and the network; ${again}`;
  if (answer.startsWith("no key") && profile.credential.kind === "env")
    return `export ${profile.credential.variable}=… where olliesrv starts (and restart it), or use --key-cmd 'COMMAND' to have olliesrv run a command that prints the key; ${again}`;
  if (answer.startsWith("no key") || answer.startsWith("key refused")) return `check the key; ${again}`;
  if (answer.includes(", but not "))
    return `it does not list ${profile.model}: pick one of its models with --model, ${again}`;
  return again;
}
