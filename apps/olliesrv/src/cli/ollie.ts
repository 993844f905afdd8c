import { parseArgs } from "node:util";
import { type Invocation, parseInvocation } from "./invocation.js";
import { defaultAddress, identity, SessionClient } from "./session-client.js";
import { shell } from "./shell.js";

export const USAGE = `usage: ollie [-a ADDR] [-u UNAME] [-k KEYFILE] COMMAND ...
       ollie --help | --version
  new [--agent P] [--cwd D] [--backend B] [--model M] [--name N]   create a session; prints its id
  ask [SESSION] TEXT...     prompt (a new session in this directory when none is given) and stream the reply
  sh [SESSION]              talk interactively; /command runs an agent ctl command; Ctrl-C stops a turn
  ls                        the sessions: id, name, state, directory
  chat [-f] SESSION         the conversation; -f follows it
  status [SESSION]          state, model, tokens and cost
  stop SESSION              stop the running turn
  kill SESSION              end the session
The address defaults to $NAMESPACE/ollie. You attach as yourself, proven with the owner key olliesrv made
($XDG_DATA_HOME/ollie/keys/owner.key; -k names another, e.g. a copy for a TCP listener); inside an agent's
tool, as that agent ($OLLIE_UNAME, proven with $OLLIE_KEY).
`;

/** The `ollie` command. Returns the exit status: 0 success, 1 a failure, 2 a usage mistake. */
export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseGlobals>;
  try {
    parsed = parseGlobals(argv);
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, rest } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${__PACKAGE_VERSION__}\n`);
    return 0;
  }
  const [command, ...args] = rest;
  let invocation: Invocation;
  try {
    invocation = parseInvocation(command, args);
  } catch (error) {
    return usage((error as Error).message);
  }
  const address = values.a ?? defaultAddress();
  const client = await SessionClient.connect(address, () => identity({ uname: values.u, keyFile: values.k }));
  try {
    return await run(client, invocation);
  } catch (error) {
    process.stderr.write(`ollie: ${(error as Error).message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

async function run(client: SessionClient, invocation: Invocation): Promise<number> {
  switch (invocation.command) {
    case "new":
      process.stdout.write(`${await client.create(JSON.stringify(invocation.spec))}\n`);
      return 0;
    case "ask": {
      const session = invocation.session ?? (await client.create(JSON.stringify({ cwd: process.cwd() })));
      const outcome = await client.ask(session, invocation.text, (chunk) => process.stdout.write(chunk));
      if (outcome === "done" || outcome === "maxsteps") return 0;
      process.stderr.write(`ollie: the turn ended: ${outcome} (session ${session})\n`);
      return 1;
    }
    case "sh":
      return await shell(client, invocation.session);
    case "ls":
      process.stdout.write(await client.read("session/idx"));
      return 0;
    case "chat": {
      const { session, follow } = invocation;
      const chat = await client.read(`session/${session}/agent/main/chat`);
      process.stdout.write(chat);
      if (!follow) return 0;
      const tail = await client.fsys.open(`session/${session}/agent/main/tail`);
      for (let offset = Buffer.byteLength(chat); ; ) {
        const chunk = await tail.read(offset);
        if (chunk.length === 0) return 0;
        process.stdout.write(chunk);
        offset += chunk.length;
      }
    }
    case "status": {
      const ids = invocation.session
        ? [invocation.session]
        : (await client.read("session/idx"))
            .split("\n")
            .filter(Boolean)
            .map((l) => l.split("\t")[0]!);
      for (const id of ids) {
        const agent = `session/${id}/agent/main`;
        const cfg = Object.fromEntries(
          (await client.read(`${agent}/cfg`))
            .split("\n")
            .filter(Boolean)
            .map((l) => l.split(/=(.*)/s).slice(0, 2)),
        );
        const usage = JSON.parse(await client.read(`${agent}/usage`)) as {
          session?: { inputTokens: number; outputTokens: number };
        };
        const cost = (await client.read(`${agent}/cost`)).split("\n")[0];
        const tokens = usage.session
          ? `${usage.session.inputTokens} in / ${usage.session.outputTokens} out`
          : "0 in / 0 out";
        process.stdout.write(
          `${id}\t${cfg.state}\t${cfg.model || "(profile default)"}\t${tokens}\t${cost}\n`,
        );
      }
      return 0;
    }
    case "stop":
    case "kill":
      await client.write(`session/${invocation.session}/agent/main/ctl`, `${invocation.command}\n`);
      return 0;
  }
}

const GLOBAL_OPTIONS = {
  a: { type: "string" },
  u: { type: "string" },
  k: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** The options before the command word are ollie's own; from the command word on, the command's. */
function parseGlobals(argv: string[]) {
  const { tokens } = parseArgs({ args: argv, options: GLOBAL_OPTIONS, strict: false, tokens: true });
  const first = tokens.find((t) => t.kind !== "option");
  const end = first?.index ?? argv.length;
  const { values } = parseArgs({ args: argv.slice(0, end), options: GLOBAL_OPTIONS });
  return { values, rest: argv.slice(first?.kind === "option-terminator" ? end + 1 : end) };
}

function usage(problem: string): number {
  process.stderr.write(`ollie: ${problem}\n${USAGE}`);
  return 2;
}
