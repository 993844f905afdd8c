import { describe, expect, it } from "vitest";
import { pasteComplaints, scriptComplaints } from "./paste-check.js";

describe("pasteComplaints: an interactive bash's history expansion and parse, without running anything", () => {
  it("an unquoted unix! address is an event not found (the virtfs README before its fix)", async () => {
    const old = "echo 'save todo buy milk' | ninep -a unix!/tmp/notes.sock write ctl\n";
    expect(await pasteComplaints(old)).toMatch(/!\/tmp\/notes\.sock: event not found/);
  });

  it("the quoted address, and a `!` followed by a blank or `=`, are left as they are", async () => {
    expect(await pasteComplaints("ninep -a 'unix!/tmp/notes.sock' ls notes  # todo!\n")).toBe("");
    expect(await pasteComplaints('[ ! -e x ] || [ "$a" != b ]\n')).toBe("");
  });

  it("a `!$` inside double quotes is replaced by the line before's last word, and bash shows what it made", async () => {
    const complaint = await pasteComplaints('ls /tmp\nninep -a "unix!$NAMESPACE/ollie.mount" ls session\n');
    expect(complaint).toBe('ninep -a "unix/tmpNAMESPACE/ollie.mount" ls session');
  });

  it("nothing is run", async () => {
    expect(await pasteComplaints("echo ran >&2; exit 3\n")).toBe("");
  });

  it("a line that does not parse", async () => {
    expect(await pasteComplaints("if true; then\necho (\n")).toMatch(/syntax error.*\n[\s\S]*exit status 2/);
  });
});

describe("scriptComplaints: a script file's parse, by the shell its #! names", () => {
  it("a script expands no history", async () => {
    expect(await scriptComplaints('#!/bin/sh\necho "$1"!x\n')).toBe("");
  });

  it("a script that does not parse", async () => {
    expect(await scriptComplaints("#!/bin/sh\nif true; then\n")).toMatch(/exit status 2/);
  });
});
