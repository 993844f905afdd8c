import { setImmediate } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { NamespaceFiles } from "../namespace/files.js";
import { Prompt } from "./prompt.js";

/** Files whose every request fails as a killed session's or an aborted one's do. */
const failing = (why: string) => {
  const fail = () => Promise.reject(new Error(why));
  return { read: fail, readBytes: fail, open: fail } as unknown as NamespaceFiles;
};

describe("a prompt's end", () => {
  it("fails quietly when the chat that began to read it fails first, and fails for whoever asks", async () => {
    const prompt = new Prompt(failing("gone"), "1796046449450612060-ab0742", "main", 1, 0, undefined);
    // Following the chat begins the read of the prompt's end; the chat fails before it waits for that end.
    await expect(prompt.chat()[Symbol.asyncIterator]().next()).rejects.toThrow("gone");
    // A turn later, nobody has awaited the end: an unhandled rejection would have been reported by now.
    await setImmediate();
    await expect(prompt.ended).rejects.toThrow("gone");
  });
});
