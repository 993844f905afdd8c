import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Profile, parseBackendsConf } from "@ollie/backends";
import { olliePaths } from "../paths.js";
import type { LoginInvocation } from "./login-args.js";

/** Models worth trying first with each login, as a profile's `model =` names them. */
const MODELS = {
  copilot: "gpt-4.1 or gpt-5-mini (no premium requests), claude-sonnet-4.5",
  kiro: "claude-sonnet-4.5, claude-haiku-4.5 (fewer credits)",
} as const;

/**
 * What to do after a login, from the user's backends.conf: check the profiles that will use it, or make one
 * — with `ollie init` when there is no file yet, by hand when there is (init would replace the file).
 */
export async function nextStep(
  invocation: Exclude<LoginInvocation, { provider: undefined }>,
): Promise<string> {
  const type = invocation.provider;
  const file = join(olliePaths().config, "backends.conf");
  const text = await readFile(file, "utf8").catch(() => undefined);
  let profiles: Profile[] = [];
  try {
    if (text !== undefined)
      profiles = [...parseBackendsConf(text, file).profiles.values()].filter((p) => p.type === type);
  } catch {
    // A broken file: olliesrv says what is wrong with it; here it only means no profile is known.
  }
  // A GitHub Enterprise login is used only by a profile that names its site. (A Kiro login keeps its own
  // region: the profile's is the API's.)
  const githubUrl = invocation.provider === "copilot" ? invocation.githubUrl : undefined;
  const them = profiles.length > 1 ? "them" : "it";
  const needs =
    githubUrl !== undefined && !profiles.some((p) => p.githubUrl === githubUrl)
      ? ` (add \`github_url = ${githubUrl}\` to ${them})`
      : "";
  if (profiles.length > 0) {
    const names = profiles.map((p) => `[${p.name}]`).join(", ");
    return `next: 'ollie backends' checks that ${names} ${profiles.length > 1 ? "answer" : "answers"}${needs}`;
  }
  const models = `models to try: ${MODELS[type]}`;
  if (text === undefined)
    return `next: 'ollie init ${type}' writes ${file} with a [${type}] profile${needs}; ${models}`;
  return `next: add a [${type}] profile to ${file} — type = ${type}, model = … — or replace the file with 'ollie init --force ${type}'${needs}; ${models}`;
}
