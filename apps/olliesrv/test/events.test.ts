import type { File } from "@ollie/ninep";
import { ORDWR } from "@ollie/ninep";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ollie, prompt, startOllie } from "./harness.js";

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-events-");
});
afterAll(async () => {
  await o.stop();
  await o.remove();
});

interface Event {
  topic: string;
  seq: number;
  time: string;
  [field: string]: unknown;
}

/** Reads event lines from `f` until `done` says so (or the file ends); returns them all. */
async function readEvents(f: File, done: (events: Event[]) => boolean): Promise<Event[]> {
  const events: Event[] = [];
  let partial = "";
  while (!done(events)) {
    const chunk = (await f.read(0)).toString();
    if (chunk === "") break;
    partial += chunk;
    const lines = partial.split("\n");
    partial = lines.pop()!;
    for (const line of lines) events.push(JSON.parse(line) as Event);
  }
  return events;
}

/** Opens a session's events, writing `filter` first when given. */
async function observe(id: string, filter?: string): Promise<File> {
  const f = await o.fsys.open(`session/${id}/events`, ORDWR);
  if (filter !== undefined) await f.write(filter);
  return f;
}

describe("a session's events file", () => {
  it("streams the events that pass the filter written on the open, as JSON lines", async () => {
    const id = await o.create(`agent=coding cwd=${o.work}`);
    const agent = `session/${id}/agent/main`;
    const states = await observe(id, "agent.*.state *.tool");
    const everything = await observe(id);
    o.mock.enqueue(
      { text: "Writing.", toolCalls: [{ name: "file_write", arguments: { path: "e.txt", content: "e" } }] },
      { text: "Done." },
    );
    await prompt(o, agent, "Write e.txt");

    const seen = await readEvents(states, (es) => es.filter((e) => e.state === "idle").length === 1);
    expect(seen.map((e) => (e.topic === "agent.main.state" ? `state ${e.state}` : e.topic))).toEqual([
      // The coding profile's prompt runs commands as its agent is made for the prompt.
      "state prompt commands",
      "state thinking",
      "state calling: file_write",
      "agent.main.tool",
      "state thinking",
      "state idle",
    ]);
    const tool = seen.find((e) => e.topic === "agent.main.tool")!;
    expect(tool).toMatchObject({ call: { name: "file_write", arguments: { path: "e.txt" } } });
    expect(tool.result).toMatchObject({ name: "file_write", content: expect.stringContaining("e.txt") });
    expect(seen.every((e, i) => i === 0 || e.seq > seen[i - 1]!.seq)).toBe(true);
    expect(seen[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);

    const all = await readEvents(everything, (es) => es.some((e) => e.topic === "agent.main.turn"));
    const topics = new Set(all.map((e) => e.topic));
    for (const t of ["user", "assistant", "call", "tool", "usage", "state", "turn"])
      expect(topics).toContain(`agent.main.${t}`);
    expect(all.find((e) => e.topic === "agent.main.user")).toMatchObject({
      text: "Write e.txt",
      from: "user",
    });
    expect(all.find((e) => e.topic === "agent.main.turn")).toMatchObject({ outcome: { status: "done" } });
    await states.close();
    await everything.close();
  });

  it("tells of the session's own changes, and ends with its kill", async () => {
    const id = await o.create(`cwd=${o.work} name=watched`);
    const f = await observe(id, "session.* agent.*.note");
    await o.fsys.writeFile(`session/${id}/ctl`, "rename observed\n");
    await o.fsys.writeFile(`session/${id}/plan`, "- [ ] one\n");
    await o.fsys.writeFile(`session/${id}/agent/main/ctl`, "fork branch\n");
    await o.fsys.writeFile(`session/${id}/ctl`, "kill\n");
    const events = await readEvents(f, () => false);
    expect(events.map((e) => e.topic)).toEqual([
      "session.rename",
      "session.plan",
      "session.fork",
      "agent.main.note",
      "session.kill",
    ]);
    expect(events[0]).toMatchObject({ name: "observed" });
    expect(events[1]).toMatchObject({ plan: "- [ ] one\n" });
    expect(events[2]).toMatchObject({ agent: "main", name: "branch", clean: false });
    expect(events[3]!.text).toBe(`· forked to session ${events[2]!.to} (branch)`);
    // The end of the file: a read after the kill is empty.
    expect((await f.read(0)).length).toBe(0);
    await f.close();
  });

  it("refuses a filter that is not one", async () => {
    const id = await o.create(`cwd=${o.work}`);
    const f = await o.fsys.open(`session/${id}/events`, ORDWR);
    await expect(f.write("agent.(main)")).rejects.toThrow("'agent.(main)' is not a topic pattern");
    await f.close();
    const stat = await o.fsys.stat(`session/${id}/events`);
    expect([stat.mode & 0o777, stat.gid]).toEqual([0o666, id]);
  });
});
