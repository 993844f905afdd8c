import { parseArgs } from "node:util";
import { SESSION_ID } from "../session/names.js";
import { defaultAddress, identity, SessionClient } from "./session-client.js";
import { shell } from "./shell.js";

export const USAGE = `usage: ollie [-a ADDR] [-u UNAME] [-k KEYFILE] COMMAND ...
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
  let address = defaultAddress();
  let uname: string | undefined;
  let keyFile: string | undefined;
  let i = 0;
  for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
    const flag = argv[i]!;
    if (flag === "-h" || flag === "--help") {
      process.stdout.write(USAGE);
      return 0;
    }
    const value = argv[++i];
    if (value === undefined || !["-a", "-u", "-k"].includes(flag)) return usage(`unknown option ${flag}`);
    if (flag === "-a") address = value;
    else if (flag === "-k") keyFile = value;
    else uname = value;
  }
  const [command, ...args] = argv.slice(i);
  if (!command) return usage("");
  const client = await SessionClient.connect(address, () => identity({ uname, keyFile }));
  try {
    switch (command) {
      case "new": {
        const { values } = parseArgs({
          args,
          options: {
            agent: { type: "string" },
            cwd: { type: "string" },
            backend: { type: "string" },
            model: { type: "string" },
            name: { type: "string" },
          },
        });
        const spec = {
          agent: values.agent,
          cwd: values.cwd ?? process.cwd(),
          backend: values.backend,
          model: values.model,
          name: values.name,
        };
        process.stdout.write(
          `${await client.create(JSON.stringify(Object.fromEntries(Object.entries(spec).filter(([, v]) => v))))}\n`,
        );
        return 0;
      }
      case "ask": {
        const session =
          args.length > 1 && SESSION_ID.test(args[0]!)
            ? args.shift()!
            : await client.create(JSON.stringify({ cwd: process.cwd() }));
        const text = args.join(" ").trim();
        if (!text) return usage("ask needs a prompt");
        const outcome = await client.ask(session, text, (chunk) => process.stdout.write(chunk));
        if (outcome === "done" || outcome === "maxsteps") return 0;
        process.stderr.write(`ollie: the turn ended: ${outcome} (session ${session})\n`);
        return 1;
      }
      case "sh":
        return await shell(client, args[0]);
      case "ls":
        process.stdout.write(await client.read("session/idx"));
        return 0;
      case "chat": {
        const follow = args[0] === "-f";
        const session = follow ? args[1] : args[0];
        if (!session) return usage("chat needs a session");
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
        const ids = args[0]
          ? [args[0]]
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
      case "kill": {
        if (!args[0]) return usage(`${command} needs a session`);
        await client.write(`session/${args[0]}/agent/main/ctl`, `${command}\n`);
        return 0;
      }
      default:
        return usage(`unknown command ${command}`);
    }
  } catch (error) {
    process.stderr.write(`ollie: ${(error as Error).message}\n`);
    return 1;
  } finally {
    client.close();
  }
}

function usage(problem: string): number {
  process.stderr.write(`${problem ? `ollie: ${problem}\n` : ""}${USAGE}`);
  return 2;
}
