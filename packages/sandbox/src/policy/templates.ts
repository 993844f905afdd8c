import { homedir } from "node:os";
import { isAbsolute, normalize } from "node:path";
import { xdgDirs } from "@ollie/config-file/dirs";

const TEMPLATE = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const FIXED = [
  "CWD",
  "HOME",
  "TMPDIR",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
];

function known(name: string): boolean {
  return FIXED.includes(name) || /^OLLIE_[A-Z0-9_]+$/.test(name);
}

/** The template variables a path uses that do not exist; empty when the path is fine. */
export function unknownTemplates(path: string): string[] {
  return [...path.matchAll(TEMPLATE)].map((m) => m[1]!).filter((name) => !known(name));
}

export const KNOWN_TEMPLATES = `{${FIXED.join("}, {")}} and {OLLIE_*}`;

/** What template variables expand to: the working directory and the environment of the command. */
export interface TemplateContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function value(name: string, ctx: TemplateContext): string | undefined {
  const env = ctx.env;
  const home = env.HOME || homedir();
  switch (name) {
    case "CWD":
      return ctx.cwd;
    case "HOME":
      return home;
    case "TMPDIR":
      return env.TMPDIR || "/tmp";
    case "XDG_CONFIG_HOME":
      return xdgDirs(env).config;
    case "XDG_DATA_HOME":
      return xdgDirs(env).data;
    case "XDG_CACHE_HOME":
      return xdgDirs(env).cache;
    case "XDG_STATE_HOME":
      return xdgDirs(env).state;
    case "XDG_RUNTIME_DIR":
      return xdgDirs(env).runtime;
    default:
      return env[name] || undefined;
  }
}

/** Expands `{NAME}` variables in a policy path; the result must be absolute. `error` makes what is thrown. */
export function expandPath(path: string, ctx: TemplateContext, error: (problem: string) => Error): string {
  const expanded = path.replace(TEMPLATE, (_, name: string) => {
    const v = value(name, ctx);
    if (v === undefined) throw error(`{${name}} is used but not set`);
    return v;
  });
  if (!isAbsolute(expanded)) throw error(`'${expanded}' is not an absolute path`);
  return normalize(expanded);
}
