import { readFile } from "node:fs/promises";
import { Errno, NinepRemoteError } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { ctl } from "../patterns/ctl.js";
import { text } from "../patterns/text.js";
import { dir, file } from "../spec/node-spec.js";

const serve = servedPerTest();

const tree = () =>
  dir("/", [
    file(
      "ctl",
      ctl({
        // A command whose work fails as the system says: its errno is the system's.
        load: async ([name]) => void (await readFile(`/nonexistent/virtfs-errno/${name}`)),
        model: ([name]) => {
          if (!name) throw new Error("usage: model NAME");
        },
      }),
    ),
    file(
      "note",
      text(() => "", { write: () => {}, maxBytes: 8 }),
    ),
    dir("fixed", []),
  ]);

/** The errno and words a 9P2000.L client is given for `attempt`. */
const failure = (attempt: Promise<unknown>) =>
  attempt.then(
    () => expect.unreachable("it succeeded"),
    (error: unknown) => {
      expect(error).toBeInstanceOf(NinepRemoteError);
      return (error as NinepRemoteError).errno;
    },
  );

describe("the errno of the tree's refusals, as a 9P2000.L client is told it", () => {
  it("says what each refusal is, and a ctl command's own failure through its cause", async () => {
    const served = await serve(tree());
    const fsys = await served.attach("owner", { dialect: "9P2000.L" });
    expect(await failure(fsys.readFile("nope"))).toBe(Errno.ENOENT);
    expect(await failure(fsys.create("fixed/new"))).toBe(Errno.EPERM);
    expect(await failure(fsys.writeFile("ctl", "frobnicate\n"))).toBe(Errno.EINVAL);
    expect(await failure(fsys.writeFile("ctl", "model\n"))).toBe(Errno.EINVAL);
    expect(await failure(fsys.writeFile("ctl", "load skill\n"))).toBe(Errno.ENOENT);
    expect(await failure(fsys.writeFile("note", "longer than eight bytes"))).toBe(Errno.EFBIG);
  });

  it("attaches the aname '/' as the root, and refuses any other with ENOENT", async () => {
    const served = await serve(tree());
    const byPath = await served.attach("owner", { aname: "/" });
    expect((await byPath.readdir("/")).map((s) => s.name).sort()).toEqual(["ctl", "fixed", "note"]);
    const other = served.attach("owner", { dialect: "9P2000.L", aname: "/elsewhere" });
    expect(await failure(other)).toBe(Errno.ENOENT);
    await expect(served.attach("owner", { aname: "/elsewhere" })).rejects.toThrow(
      "no tree named '/elsewhere': this server has one, attached as '' or '/'",
    );
  });
});
