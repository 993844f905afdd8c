import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockReply, RecordedRequest } from "@ollie/backends/testing";
import { connect, type OllieClient } from "@ollie/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { askerFixture } from "./asker-fixture.js";
import { type Ollie, startOllie, WAIT } from "./harness.js";
import { ollieCommand } from "./ollie-cli.js";
import {
  ARTIFACTS,
  chromiumPresent,
  launchChromium,
  startWebCommand,
  type WebCommand,
  watchedPage,
} from "./web-harness.js";

/**
 * `ollie web` in a real Chromium against a real olliesrv whose model is the mock provider: what a person
 * supervising agents from a browser does, and what must never happen there.
 */

type Message = { role: string; content?: string | null };

/** A reply long enough to be seen streaming: many small chunks, a little apart. */
const STREAMED =
  "## Files\n\nThe directory holds **one** file, `made.txt`, which the shell wrote just now.\n\n" +
  "- it says *hello from the sandbox*\n- nothing else is there\n\nDone.";
const HOSTILE =
  'Look: <script>alert("xss")</script> and <img src=x onerror="alert(1)"> and [a link](javascript:alert(2)).';

function model(request: RecordedRequest): MockReply {
  const messages = (request.body as { messages: Message[] }).messages;
  const prompt = String(messages.findLast((m) => m.role === "user")?.content ?? "");
  const last = messages.at(-1)!;
  const after = last.role === "tool";
  if (prompt.includes("Make a file"))
    return after
      ? { text: STREAMED, chunkSize: 6, delayMs: 15 }
      : {
          toolCalls: [
            {
              name: "shell",
              arguments: {
                command: "echo hello from the sandbox > made.txt && cat made.txt && echo second line",
              },
            },
          ],
        };
  if (prompt.includes("Wait a long time"))
    return after
      ? { text: "Stopped waiting." }
      : { toolCalls: [{ name: "shell", arguments: { command: "exec sleep 60" } }] };
  if (prompt.includes("Say something hostile")) return { text: HOSTILE };
  if (prompt.includes("Ask to go outside"))
    return after
      ? { text: "The marker is touched." }
      : {
          toolCalls: [
            { name: "bypass_request", arguments: { operation: "touch_marker", reason: "the test needs it" } },
          ],
        };
  if (prompt.includes("Write the notes"))
    return after
      ? { text: "Written." }
      : { toolCalls: [{ name: "shell", arguments: { command: "echo changed > notes.txt" } }] };
  return { text: "Hello from the model." };
}

const run = chromiumPresent();
let o: Ollie;
let web: WebCommand;
let browser: Browser;
let owner: OllieClient;
let marker: string;

beforeAll(async () => {
  if (!run) return;
  o = await startOllie("olliesrv-web-", {
    mock: { replies: model },
    setup: (config) => {
      marker = askerFixture(config);
    },
  });
  owner = await connect({ env: o.env });
  web = await startWebCommand(o);
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await web?.stop();
  owner?.close();
  await o?.stop();
  await o?.remove();
});

let context: BrowserContext;
let page: Page;
let problems: string[];
beforeEach(async () => {
  if (!run) return;
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  ({ page, problems } = await watchedPage(context));
});
afterEach(async () => {
  if (!run) return;
  await context.close();
  expect(problems).toEqual([]);
});

const ollie = ollieCommand(() => o);
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** Opens the page at `path` as a person who followed the printed link does. */
async function open(path = "/"): Promise<void> {
  await page.goto(web.url);
  if (path !== "/") await page.goto(`${web.origin}${path}`);
  await expect.poll(() => page.locator("#link").textContent(), WAIT).toBe("live");
}

async function newSession(name: string, spec: Record<string, string> = {}): Promise<string> {
  return (await owner.newSession({ name, cwd: o.work, agent: "coding", ...spec })).id;
}

describe.runIf(run)("ollie web", () => {
  it("refuses a request without the token", async () => {
    const bare = await page.goto(web.origin);
    expect(bare?.status()).toBe(401);
    expect(await page.textContent("body")).toContain("the address `ollie web` printed");
    expect((await fetch(`${web.origin}/events?page=sessions`)).status).toBe(401);
    expect((await fetch(`${web.origin}/?token=not-it`)).status).toBe(401);
    // The browser says, as it should, that the page was refused.
    expect(problems.splice(0).filter((p) => !p.includes("status of 401"))).toEqual([]);
  });

  it("lists a session made from outside as soon as it is made", async () => {
    await open();
    const made = Date.now();
    const created = await ollie("new", "--name", "made-outside", "--cwd", o.work);
    expect(created.exitCode).toBe(0);
    await page.getByRole("link", { name: "made-outside" }).waitFor(WAIT);
    const shownAfterMs = Date.now() - made;
    writeFileSync(join(ARTIFACTS, "session-listed-ms.txt"), `${shownAfterMs}\n`);
    // Killed from outside, its rows go.
    await ollie("kill", created.stdout.trim());
    await page.getByRole("link", { name: "made-outside" }).waitFor({ state: "detached", ...WAIT });
  });

  it("keeps the focus on a row's button while the row changes", async () => {
    const id = await newSession("focused");
    await open();
    const fork = page.getByRole("button", { name: "Fork focused" });
    await fork.focus();
    await (await owner.session(id).agent().prompt("Hello")).ended;
    const row = page.locator(`#s-${id}`);
    await expect.poll(() => row.locator("td[data-label='Last turn']").textContent(), WAIT).toBe("done");
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe("Fork focused");
  });

  it("lets a hidden tab's stream go, and takes it up where it stopped when shown", async () => {
    const id = await newSession("hidden");
    // The first tab keeps its stream hidden or not (approvals notify through it); the second does not.
    await open();
    const second = await watchedPage(context);
    await second.page.goto(`${web.origin}/s/${id}/a/main`);
    await expect.poll(() => second.page.locator("#link").textContent(), WAIT).toBe("live");
    const visibility = (hidden: boolean) =>
      `Object.defineProperty(document, "hidden", { configurable: true, get: () => ${hidden} });
       document.dispatchEvent(new Event("visibilitychange"));`;
    await second.page.evaluate(visibility(true));
    await page.evaluate(visibility(true));
    await expect.poll(() => second.page.locator("#link").textContent(), WAIT).toBe("paused while hidden");
    expect(await page.locator("#link").textContent()).toBe("live");
    await (await owner.session(id).agent().prompt("Hello while hidden")).ended;
    await second.page.evaluate(visibility(false));
    await second.page.locator("#chat .said", { hasText: "Hello while hidden" }).waitFor(WAIT);
    await second.page.locator("#chat p", { hasText: "Hello from the model." }).waitFor(WAIT);
    expect(await second.page.locator("#chat p", { hasText: "Hello from the model." }).count()).toBe(1);
    expect(second.problems).toEqual([]);
  });

  it("streams a prompt's reply and its sandboxed tool call", async () => {
    const id = await newSession("streaming");
    await open(`/s/${id}/a/main`);
    await page.getByLabel("Prompt").fill("Make a file and tell me about it");
    await page.getByLabel("Prompt").press("Control+Enter");
    // The shell ran, in the sandbox, in the session's directory; its result is in its disclosure.
    const call = page.locator("details.call", { hasText: "shell" });
    await call.waitFor(WAIT);
    // Its whole result, as the tool's event has it (the chat says its first line).
    await expect
      .poll(() => call.locator("pre.result").textContent(), WAIT)
      .toMatch(/^hello from the sandbox\nsecond line/);
    expect(readFileSync(join(o.work, "made.txt"), "utf8")).toBe("hello from the sandbox\n");
    // The reply streams: its text is seen unfinished, then rendered whole as Markdown.
    await expect.poll(() => page.locator("#chat-tail").textContent(), WAIT).toMatch(/\S/);
    await page.locator("#chat h2", { hasText: "Files" }).waitFor(WAIT);
    await page.locator("#chat strong", { hasText: "one" }).waitFor(WAIT);
    await page.locator("#chat p", { hasText: "Done." }).waitFor(WAIT);
    await expect.poll(() => page.locator("#agent-status .state").textContent(), WAIT).toBe("idle");
    // Opened by keyboard alone: a disclosure is a real one.
    await call.locator("summary").focus();
    await page.keyboard.press("Enter");
    expect(await call.getAttribute("open")).not.toBeNull();
    await shot("agent");
    await page.setViewportSize({ width: 390, height: 844 });
    await shot("agent-phone");
    // Reloaded, the page shows what the live one did.
    await page.reload();
    await page.locator("#chat h2", { hasText: "Files" }).waitFor(WAIT);
    // Reloaded, the call shows the chat's line for it: the history page has the rest.
    expect(await call.locator("pre.result").textContent()).toBe("hello from the sandbox (2 lines)");
  });

  it("stops a running turn", async () => {
    const id = await newSession("stopping");
    await open(`/s/${id}/a/main`);
    await page.getByLabel("Prompt").fill("Wait a long time");
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.locator("#agent-status .state").textContent(), WAIT)
      .toMatch(/^calling shell/);
    // The running process is listed; its page shows what it printed (nothing) without waiting for more.
    const running = page.locator("#agent-processes li", { hasText: "running" });
    await running.waitFor(WAIT);
    const output = await context.newPage();
    await output.goto(`${web.origin}${await running.locator("a").getAttribute("href")}`);
    expect(await output.locator("pre.output").textContent()).toBe("(nothing yet)");
    await output.close();
    // A prompt sent while the turn runs waits, and the page says so.
    await page.getByLabel("Prompt").fill("Say hello\nafterwards");
    await page.getByLabel("Prompt").press("Control+Enter");
    await expect
      .poll(() => page.locator("#agent-queue li").allTextContents(), WAIT)
      .toEqual([expect.stringMatching(/^#\d+ Say hello\nafterwards from /)]);
    await page.getByRole("button", { name: "Stop the turn" }).click();
    // The shell's minute is cut short: the waiting prompt runs at once, and waits no more.
    await page.locator("#chat .said", { hasText: "afterwards" }).waitFor(WAIT);
    await page.locator("#chat p", { hasText: "Hello from the model." }).waitFor(WAIT);
    await expect.poll(() => page.locator("#agent-queue li").count(), WAIT).toBe(0);
    await expect.poll(() => page.locator("#agent-status .state").textContent(), WAIT).toBe("idle");
    expect(await owner.session(id).agent().turns()).toBe(2);
  });

  it("shows a reply's HTML and script as text, and runs none of it", async () => {
    const id = await newSession("hostile");
    await open(`/s/${id}/a/main`);
    await page.getByLabel("Prompt").fill("Say something hostile");
    await page.getByLabel("Prompt").press("Control+Enter");
    const said = page.locator("#chat p", { hasText: "Look:" });
    await said.waitFor(WAIT);
    expect(await said.textContent()).toBe(
      'Look: <script>alert("xss")</script> and <img src=x onerror="alert(1)"> and a link.',
    );
    expect(await page.locator("#chat script, #chat img, #chat a").count()).toBe(0);
    // Reloaded from the server, the same.
    await page.reload();
    await page.locator("#chat p", { hasText: "Look:" }).waitFor(WAIT);
    expect(await page.locator("#chat script, #chat img, #chat a").count()).toBe(0);
  });

  it("approves a bypass request, which then runs, and notifies of it", async () => {
    await context.grantPermissions(["notifications"], { origin: web.origin });
    // Headless Chromium shows no notification: the page's are recorded instead, as the page makes them.
    await page.addInitScript({
      content: `window.shownNotifications = [];
        window.Notification = class {
          static permission = "granted";
          static requestPermission = async () => "granted";
          constructor(title) { window.shownNotifications.push(title); }
          addEventListener() {}
        };`,
    });
    const id = await newSession("asking", { agent: "asker" });
    await open("/approvals");
    await owner.session(id).agent().prompt("Ask to go outside");
    const request = page.locator("li.approval", { hasText: `${id}.main` });
    await request.waitFor(WAIT);
    expect(await request.locator("h2").textContent()).toContain("touch_marker");
    expect(await request.locator("pre.command").textContent()).toBe(`touch ${marker}`);
    await expect
      .poll(() => page.evaluate("window.shownNotifications"), WAIT)
      .toEqual([expect.stringMatching(/^Approval \d+ waits$/)]);
    await shot("approvals");
    await request.getByRole("button", { name: /^Approve request/ }).click();
    await request.waitFor({ state: "detached", ...WAIT });
    await vi.waitFor(() => expect(existsSync(marker)).toBe(true), WAIT);
  });

  it("sets a budget and rewinds a turn's changes", async () => {
    // A directory of its own: the checkpoints are the directory's, and other sessions write in o.work.
    const dir = join(o.work, "rewinding");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "original\n");
    const id = (await owner.newSession({ name: "rewinding", cwd: dir, agent: "coding" })).id;
    await open(`/s/${id}/a/main`);
    // The mock's model has no price: a limit in dollars alone is refused, and the page says why.
    await page.getByLabel("Budget in US dollars").fill("2.50");
    await page.getByRole("button", { name: "Set budget" }).click();
    await expect.poll(() => page.locator("p.problem").textContent(), WAIT).toMatch(/no price/);
    expect(problems.splice(0)).toEqual([expect.stringContaining("status of 409")]);
    await page.getByLabel("Budget in tokens").fill("50000");
    await page.getByRole("button", { name: "Set budget" }).click();
    await expect
      .poll(async () => {
        const { usd, tokens } = await owner.session(id).budget();
        return { usd, tokens };
      }, WAIT)
      .toEqual({ usd: 2.5, tokens: 50000 });
    await expect.poll(() => page.locator("#agent-usage").textContent(), WAIT).toContain("of 50000 tokens");
    await page.getByLabel("Prompt").fill("Write the notes");
    await page.getByLabel("Prompt").press("Control+Enter");
    await page.locator("#agent-checkpoints summary", { hasText: "Checkpoint 1" }).waitFor(WAIT);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("changed\n");
    await page.getByRole("button", { name: "Rewind to checkpoint 1" }).click();
    await vi.waitFor(() => expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("original\n"), WAIT);
  });

  it("shows every session with its state, and recovers when olliesrv restarts", async () => {
    const id = await newSession("watched");
    // An agent's page, open in another tab with a turn in its conversation.
    const agentTab = await watchedPage(context);
    await agentTab.page.goto(web.url);
    await agentTab.page.goto(`${web.origin}/s/${id}/a/main`);
    await agentTab.page.getByLabel("Prompt").fill("Hello there");
    await agentTab.page.getByLabel("Prompt").press("Control+Enter");
    await agentTab.page.locator("#chat p", { hasText: "Hello from the model." }).waitFor(WAIT);
    await open();
    await page.getByRole("link", { name: "watched" }).waitFor(WAIT);
    await shot("sessions");
    await o.stop();
    await expect.poll(() => page.locator("#link").textContent(), WAIT).toMatch(/olliesrv/);
    await o.restart();
    owner.close();
    owner = await connect({ env: o.env });
    await expect.poll(() => page.locator("#link").textContent(), WAIT).toBe("live");
    // Live again: a session made now is listed.
    await newSession("after-restart");
    await page.getByRole("link", { name: "after-restart" }).waitFor(WAIT);
    // The agent's page was sent its conversation anew (olliesrv rebuilt it), and goes on with the next turn.
    await expect.poll(() => agentTab.page.locator("#link").textContent(), WAIT).toBe("live");
    await agentTab.page.getByLabel("Prompt").fill("Hello again");
    await agentTab.page.getByLabel("Prompt").press("Control+Enter");
    await agentTab.page.locator("#chat .said", { hasText: "Hello again" }).waitFor(WAIT);
    await expect
      .poll(() => agentTab.page.locator("#chat p", { hasText: "Hello from the model." }).count(), WAIT)
      .toBe(2);
    expect(await agentTab.page.locator("#chat .said").allTextContents()).toEqual([
      "Hello there",
      "Hello again",
    ]);
    // The browser said the stream broke while olliesrv and the stream were gone: nothing else.
    expect([...problems.splice(0), ...agentTab.problems].filter((p) => !p.includes("/events?"))).toEqual([]);
  });
});
