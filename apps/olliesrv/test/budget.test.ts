import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, type OllieClient, RefusedError } from "@ollie/client";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OLLIE, type Ollie, readText, startOllie } from "./harness.js";

// A session's budget, enforced by olliesrv before each model request: in tokens, in dollars at the price
// table's rate, and over the sessions an agent makes, whose spending is charged to their maker's session.

let o: Ollie;
let owner: OllieClient;
beforeAll(async () => {
  o = await startOllie("olliesrv-budget-", {
    mock: { models: ["mock-model", "gpt-5"].map((id) => ({ id, contextLength: 32_768 })) },
    setup: (config) => {
      // The price table knows gpt-5 ($1.25 a million input tokens), so its requests cost dollars.
      const conf = join(config, "backends.conf");
      const url = /^url = (.*)$/m.exec(readText(conf))![1];
      writeFileSync(
        conf,
        `${readText(conf)}[priced]\ntype = openai\nurl = ${url}\nmodel = gpt-5\n` +
          `[capped]\ntype = openai\nurl = ${url}\nmodel = gpt-5\nbudget = 0.50\n`,
      );
      // An agent profile with a budget of its own, which goes before its backend's.
      mkdirSync(join(config, "agents"), { recursive: true });
      writeFileSync(
        join(config, "agents", "frugal.json"),
        JSON.stringify({ prompt: "Be brief.", backend: "capped", budget: { tokens: 3000 } }),
      );
    },
  });
  owner = await connect({ env: o.env });
});
afterAll(async () => {
  owner?.close();
  await o?.stop();
  await o?.remove();
});

const shell = (command: string) => ({ toolCalls: [{ name: "shell", arguments: { command } }] });
const budgetOf = async (id: string) =>
  Object.fromEntries(
    (await o.read(`session/${id}/budget`))
      .trim()
      .split("\n")
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );

/** A client that is the main agent of `session`, as its tools are: the agent writes its credentials. */
async function asAgentOf(session: {
  agent(): { prompt(text: string): Promise<{ ended: Promise<unknown> }> };
}) {
  o.mock.enqueue(shell(`printf '%s\\n%s\\n' "$OLLIE_UNAME" "$OLLIE_KEY" > who`), { text: "Written." });
  await (await session.agent().prompt("Say who you are")).ended;
  const [uname = "", key = ""] = readFileSync(join(o.work, "who"), "utf8").split("\n");
  return connect({ env: { HOME: o.root, OLLIE_UNAME: uname, OLLIE_KEY: key, OLLIE_ADDRESS: o.address } });
}

describe("a session's budget", () => {
  it("in tokens stops the turn's second request; the chat, outcome and budget file say so; raising it goes on", async () => {
    const session = await owner.newSession({ agent: "coding", cwd: o.work });
    // The coding profile's prompt and tools are some 2,500 tokens: the first request fits, then reports 3,060.
    await session.ctl("budget tokens 3000");
    o.mock.enqueue({ ...shell("true"), usage: { input: 3000, output: 60 } });
    const first = await (await session.agent().prompt("Do it")).ended;
    expect(first.outcome).toMatchObject({ status: "budget" });
    expect(await session.agent().chatText()).toContain(
      "! budget: this session's budget: 3000 tokens are spent (3060)",
    );
    expect(await budgetOf(session.id)).toMatchObject({
      tokens: "3000",
      tokens_spent: "3060",
      tokens_left: "0",
    });

    await session.ctl("budget tokens 100000");
    o.mock.enqueue({ text: "Now I can." });
    expect((await (await session.agent().prompt("Go on")).ended).outcome.status).toBe("done");
  });

  it("in dollars, with a priced model, stops at the limit", async () => {
    const session = await owner.newSession({ agent: "coding", cwd: o.work, backend: "priced" });
    await session.ctl("budget $1");
    o.mock.enqueue({ ...shell("true"), usage: { input: 1_000_000, output: 0 } });
    expect((await (await session.agent().prompt("Spend")).ended).outcome.status).toBe("budget");
    expect(await budgetOf(session.id)).toMatchObject({
      usd: "1.0000",
      usd_spent: "1.2500",
      usd_left: "0.0000",
    });
  });

  it("covers the sessions its agents make: a child's spending stops at the maker's limit, and is charged to it", async () => {
    const parent = await owner.newSession({ agent: "coding", cwd: o.work, backend: "priced" });
    await parent.ctl("budget 2");
    // The parent's agent hands the test its credentials, to make a session as that agent would.
    const asAgent = await asAgentOf(parent);
    try {
      const child = await asAgent.newSession({ agent: "coding", cwd: o.work, backend: "priced" });
      // An agent may not lift its own session's budget, nor give a child more than its maker has left.
      await expect(asAgent.session(parent.id).ctl("budget 100")).rejects.toBeInstanceOf(RefusedError);
      await expect(asAgent.session(child.id).ctl("budget 3")).rejects.toMatchObject({
        reason: expect.stringMatching(
          /^budget: session \S+, which made this one, has \$1\.99\d\d left: no more/,
        ),
      });
      await asAgent.session(child.id).ctl("budget 1.5");
      await asAgent.session(child.id).ctl("budget off");

      // Two requests of $1.25 each: the child's $2.50 is charged to the parent, whose $2 stops the third.
      const million = { input: 1_000_000, output: 0 };
      o.mock.enqueue({ ...shell("true"), usage: million }, { ...shell("true"), usage: million });
      const spent = await (await owner.session(child.id).agent().prompt("Spend")).ended;
      expect(spent.outcome.status).toBe("budget");
      expect(await owner.session(child.id).agent().chatText()).toMatch(
        new RegExp(`! budget: the budget of session ${parent.id}, which made this one: \\$2\\.0000 is spent`),
      );
      expect(Number((await budgetOf(parent.id)).usd_spent)).toBeGreaterThanOrEqual(2.5);
      expect(Number((await budgetOf(child.id)).usd_spent)).toBe(2.5);
    } finally {
      asAgent.close();
    }
  });

  it("stops every turn charged to it once spent: a child mid-tool ends in budget, the events warned, the parent hears", async () => {
    const parent = await owner.newSession({ agent: "coding", cwd: o.work, backend: "priced" });
    await parent.ctl("budget 2");
    const asAgent = await asAgentOf(parent);
    const events = await parent.events({ topics: "session.budget" });
    try {
      const waiting = await asAgent.newSession({ agent: "coding", cwd: o.work, backend: "priced" });
      const spending = await asAgent.newSession({ agent: "coding", cwd: o.work, backend: "priced" });
      // The first child's request costs $1.25 (half the parent's $2 passed), then its tool runs until stopped.
      o.mock.enqueue({ ...shell("exec tail -f /dev/null"), usage: { input: 1_000_000, output: 0 } });
      // The parent's agent asks for both turns: it hears how they end.
      const held = await asAgent.session(waiting.id).agent().prompt("Wait");
      await owner
        .session(waiting.id)
        .agent()
        .waitState({ until: (s) => s.startsWith("calling") });
      // The second child's reply spends the rest: the first child's turn stops at once, in budget.
      o.mock.enqueue({ text: "Spent.", usage: { input: 1_000_000, output: 0 } });
      await (await asAgent.session(spending.id).agent().prompt("Spend")).ended;
      const stopped = await held.ended;
      expect(stopped.outcome.status).toBe("budget");
      // What the parent's agent spent making them is charged too: a little over $2.50.
      expect(await owner.session(waiting.id).agent().chatText()).toMatch(
        new RegExp(
          `! budget: the budget of session ${parent.id}, which made this one: \\$2\\.0000 is spent \\(\\$2\\.50\\d\\d\\)`,
        ),
      );

      const marks = [];
      for await (const event of events) {
        marks.push(event);
        if (marks.length === 2) break;
      }
      expect(marks).toMatchObject([
        {
          kind: "session",
          type: "budget",
          fraction: 0.5,
          message: expect.stringMatching(/^50% of \$2\.0000 is spent \(\$1\.25\d\d\)$/),
        },
        {
          kind: "session",
          type: "budget",
          fraction: 1,
          message: expect.stringMatching(/^\$2\.0000 is spent \(\$2\.50\d\d\)$/),
        },
      ]);
      // The parent's agent is told how its children's turns ended (its own turn then stops at its budget).
      await parent.agent().waitTurns(3);
      expect(await parent.agent().chatText()).toContain(
        `the budget stopped the turn: the budget of session ${parent.id}, which made this one: $2.0000 is spent`,
      );
    } finally {
      await events.close();
      asAgent.close();
    }
  });

  it("starts as the agent profile says, else as its backends.conf profile says; dollars need a price", async () => {
    const frugal = await owner.newSession({ agent: "frugal", cwd: o.work });
    expect(await frugal.budget()).toMatchObject({ usd: undefined, tokens: 3000 });
    const capped = await owner.newSession({ agent: "coding", cwd: o.work, backend: "capped" });
    expect(await capped.budget()).toMatchObject({ usd: 0.5, tokens: undefined });
    const status = await execa(process.execPath, [OLLIE, "-a", o.address, "status", capped.id], {
      env: o.env,
      extendEnv: false,
    });
    expect(status.stdout).toMatch(/\t\$0\.0000 session\tbudget \$0\.0000 of \$0\.5000$/);
    const plain = await owner.newSession({ agent: "coding", cwd: o.work });
    expect(await plain.budget()).toMatchObject({ usd: undefined, tokens: undefined, warnAt: [0.5, 0.8] });

    // mock-model is in no price table: dollars cannot hold it, unless tokens do.
    await expect(plain.ctl("budget 1")).rejects.toMatchObject({
      reason:
        "budget: a budget in dollars cannot hold agent main's model mock-model (openai), which has no price in dollars: set 'budget tokens N' first",
    });
    await plain.ctl("budget tokens 10000");
    await plain.ctl("budget 1");
    expect(await plain.budget()).toMatchObject({ usd: 1, tokens: 10000 });
    o.mock.enqueue({ text: "Counted in tokens.", usage: { input: 100, output: 20 } });
    expect((await (await plain.agent().prompt("Hi")).ended).outcome.status).toBe("done");
    expect(await plain.budget()).toMatchObject({ usdSpent: 0, tokensSpent: 120 });
  });

  it("reads the same after a restart", async () => {
    const session = await owner.newSession({ agent: "coding", cwd: o.work });
    await session.ctl("budget tokens 5000");
    o.mock.enqueue({ text: "Hello.", usage: { input: 30, output: 12 } });
    await (await session.agent().prompt("Hi")).ended;
    const before = await budgetOf(session.id);
    expect(before).toMatchObject({ tokens: "5000", tokens_spent: "42" });
    owner.close();
    await o.stop();
    await o.restart();
    owner = await connect({ env: o.env });
    expect(await budgetOf(session.id)).toEqual(before);
  });
});
