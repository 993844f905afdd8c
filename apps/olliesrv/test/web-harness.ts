import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { OLLIE, type Ollie } from "./harness.js";

/** Debian's Chromium, which `.ci/run` installs; OLLIE_CHROMIUM names another. */
const CHROMIUM = process.env.OLLIE_CHROMIUM ?? "/usr/bin/chromium";

/** Where the browser tests put their screenshots and figures (the README shows the screenshots). */
export const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/web/", import.meta.url));

/**
 * Whether the browser tests can run: without Chromium they are skipped, saying so — except in CI, where a
 * missing browser is a failure, so a green run cannot hide that they did not run.
 */
export function chromiumPresent(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI)
    throw new Error(`${CHROMIUM} is missing: CI installs Debian's chromium for these tests`);
  process.stderr.write(`skipping the browser tests: no ${CHROMIUM} (Debian's chromium package)\n`);
  return false;
}

/**
 * Chromium, headless, without the calls home a closed network refuses; playwright-core drives the browser
 * installed, never one it downloads.
 */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--disable-gpu", "--no-first-run", "--disable-sync", "--disable-quic"],
  });
}

/** `ollie web` as a person starts it, against the test's olliesrv. */
export interface WebCommand {
  /** The address it printed, with its token. */
  url: string;
  origin: string;
  child: ResultPromise;
  stderr: () => string;
  stop(): Promise<void>;
}

export async function startWebCommand(o: Ollie, args: readonly string[] = []): Promise<WebCommand> {
  const child = execa(process.execPath, [OLLIE, "-a", o.address, "web", ...args], {
    cwd: o.work,
    env: o.env,
    extendEnv: false,
    reject: false,
  });
  let said = "";
  child.stderr!.on("data", (c: Buffer) => {
    said += c.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const found = /^ollie web: (\S+)$/m.exec(out)?.[1];
      if (found) resolve(found);
    });
    void child.then(() => reject(new Error(`ollie web exited:\n${out}${said}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    child,
    stderr: () => said,
    stop: async () => {
      child.kill("SIGTERM");
      await child;
    },
  };
}

/**
 * A page that records what must never happen: a dialog (a script of the model's ran), a violation of the
 * page's Content-Security-Policy, an error in the page's script.
 */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  await page.exposeBinding("ollieTestViolation", (_source, text: string) => problems.push(`csp: ${text}`));
  // Run in the page before its own script (injected by the browser, so the page's policy does not apply).
  await page.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (event) =>
      window.ollieTestViolation(event.violatedDirective + " " + event.blockedURI));`,
  });
  return { page, problems };
}
