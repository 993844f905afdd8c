import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname, extname, join } from "node:path";
import { ToolError } from "../tool-io.js";

/** A language server the broker can start: which files it serves, how it starts, where a project begins. */
export interface LanguageServerSpec {
  /** Names the server in messages and keys it (with the workspace root) in the broker. */
  language: string;
  /** File extensions it serves, and the LSP languageId of each. */
  extensions: Readonly<Record<string, string>>;
  /** Found on PATH. */
  command: string;
  args: readonly string[];
  /** Files that mark a project's root, nearest first; `.git` is tried after them. */
  rootMarkers: readonly string[];
  /** How to get it, for the error that says it is missing. */
  install: string;
  /** Sent with `initialize`. */
  initializationOptions?: unknown;
}

/**
 * The servers, by language. TypeScript and JavaScript are the tested default; the others are used when their
 * command is on PATH.
 */
export const LANGUAGE_SERVERS: readonly LanguageServerSpec[] = [
  {
    language: "typescript",
    extensions: {
      ".ts": "typescript",
      ".mts": "typescript",
      ".cts": "typescript",
      ".tsx": "typescriptreact",
      ".js": "javascript",
      ".mjs": "javascript",
      ".cjs": "javascript",
      ".jsx": "javascriptreact",
    },
    command: "typescript-language-server",
    args: ["--stdio"],
    rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
    install: "typescript-language-server (npm i -g typescript-language-server typescript)",
    // Without the syntax-only server, which answers while the project loads — an import instead of the
    // definition it names: a model asks once and believes the answer, so the full answer is worth the wait.
    initializationOptions: { tsserver: { useSyntaxServer: "never" } },
  },
  {
    language: "python",
    extensions: { ".py": "python", ".pyi": "python" },
    command: "pyright-langserver",
    args: ["--stdio"],
    rootMarkers: ["pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
    install: "pyright (npm i -g pyright)",
  },
  {
    language: "go",
    extensions: { ".go": "go" },
    command: "gopls",
    args: [],
    rootMarkers: ["go.work", "go.mod"],
    install: "gopls (go install golang.org/x/tools/gopls@latest)",
  },
  {
    language: "rust",
    extensions: { ".rs": "rust" },
    command: "rust-analyzer",
    args: [],
    rootMarkers: ["Cargo.toml"],
    install: "rust-analyzer (rustup component add rust-analyzer)",
  },
  {
    language: "c",
    extensions: {
      ".c": "c",
      ".h": "c",
      ".cc": "cpp",
      ".cpp": "cpp",
      ".cxx": "cpp",
      ".hh": "cpp",
      ".hpp": "cpp",
      ".hxx": "cpp",
    },
    command: "clangd",
    args: [],
    rootMarkers: ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"],
    install: "clangd (apt-get install clangd)",
  },
];

/** The spec that serves `file`, by its extension; a ToolError naming the known ones when none does. */
export function specFor(
  file: string,
  specs: readonly LanguageServerSpec[] = LANGUAGE_SERVERS,
): LanguageServerSpec {
  const ext = extname(file).toLowerCase();
  const spec = specs.find((s) => ext in s.extensions);
  if (spec) return spec;
  const known = specs.flatMap((s) => Object.keys(s.extensions)).join(" ");
  throw new ToolError(
    `no language server is configured for ${ext ? `${ext} files` : file} (known: ${known})`,
  );
}

/** The LSP languageId of `file` under `spec`. */
export function languageId(spec: LanguageServerSpec, file: string): string {
  return spec.extensions[extname(file).toLowerCase()] ?? spec.language;
}

/** The executable `command` names on `path` (a PATH value); a ToolError saying how to install it if none. */
export async function findCommand(spec: LanguageServerSpec, file: string, path: string): Promise<string> {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const candidate = join(dir, spec.command);
    const ok = await access(candidate, constants.X_OK).then(
      () => stat(candidate).then((s) => s.isFile()),
      () => false,
    );
    if (ok) return candidate;
  }
  throw new ToolError(
    `no language server for ${extname(file) || file} files: ${spec.command} is not on PATH; install ${spec.install}`,
  );
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * The workspace root of `file`: the nearest directory above it holding one of the spec's markers, else the
 * nearest holding `.git`, else the file's own directory.
 */
export async function workspaceRoot(spec: LanguageServerSpec, file: string): Promise<string> {
  for (const markers of [spec.rootMarkers, [".git"]]) {
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      for (const marker of markers) if (await exists(join(dir, marker))) return dir;
      if (dirname(dir) === dir) break;
    }
  }
  return dirname(file);
}
