import { ORDWR } from "@ollie/ninep";
import { describe, expect, it } from "vitest";
import { servedPerTest } from "../__fixtures__/serve-tree.js";
import { dir, file } from "../spec/node-spec.js";
import { clone } from "./clone.js";

const serve = servedPerTest();

describe("clone", () => {
  it("creates an object from a written spec and reads its id on the same fid", async () => {
    const made: string[] = [];
    const served = await serve(
      dir("/", [
        file(
          "new",
          clone((spec) => {
            if (spec === "") throw new Error("empty spec");
            made.push(spec);
            return String(made.length);
          }),
        ),
      ]),
    );
    const fsys = await served.attach();
    const ids = await Promise.all(
      ["profile=a", "profile=b"].map((spec) =>
        fsys.withFile("new", ORDWR, async (f) => {
          await f.write(`${spec}\n`);
          return (await f.read(0)).toString();
        }),
      ),
    );
    expect(ids.sort()).toEqual(["1\n", "2\n"]);
    expect(made.sort()).toEqual(["profile=a", "profile=b"]);
    await expect(fsys.withFile("new", ORDWR, (f) => f.read(0))).rejects.toThrow("write a spec first");
    await expect(fsys.withFile("new", ORDWR, (f) => f.write("\n"))).rejects.toThrow("empty spec");
  });
});
