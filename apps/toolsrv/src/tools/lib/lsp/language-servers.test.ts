import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findCommand, languageId, specFor, workspaceRoot } from "./language-servers.js";

const root = mkdtempSync(join(tmpdir(), "lsp-servers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the language server table", () => {
  it("picks the server by extension, and names the known ones otherwise", () => {
    expect(specFor("/a/b.tsx").command).toBe("typescript-language-server");
    expect(languageId(specFor("/a/b.tsx"), "/a/b.tsx")).toBe("typescriptreact");
    expect(specFor("/a/b.py").command).toBe("pyright-langserver");
    expect(() => specFor("/a/notes.txt")).toThrow(
      /^no language server is configured for \.txt files \(known: \.ts /,
    );
  });

  it("finds the command on PATH, or says how to install it", async () => {
    const bin = join(root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "gopls"), "#!/bin/sh\n");
    chmodSync(join(bin, "gopls"), 0o755);
    expect(await findCommand(specFor("x.go"), "x.go", `/nonexistent:${bin}`)).toBe(join(bin, "gopls"));
    await expect(findCommand(specFor("x.py"), "x.py", bin)).rejects.toThrow(
      "no language server for .py files: pyright-langserver is not on PATH; install pyright (npm i -g pyright)",
    );
  });

  it("finds the workspace root by the nearest marker, then .git, then the file's directory", async () => {
    const repo = join(root, "repo");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(join(repo, "pkg", "src"), { recursive: true });
    writeFileSync(join(repo, "pkg", "tsconfig.json"), "{}");
    expect(await workspaceRoot(specFor("a.ts"), join(repo, "pkg", "src", "a.ts"))).toBe(join(repo, "pkg"));
    expect(await workspaceRoot(specFor("a.rs"), join(repo, "pkg", "src", "a.rs"))).toBe(repo);
  });
});
