import { keyValues, readActivity, readUsage, shortCount } from "./agent-files.js";
import type { SessionClient } from "./session-client.js";

/** `ollie sh`'s slash commands; what is not among them goes to the agent's ctl as it was typed. */
export const SHELL_HELP = `/help                  this list
/status                state, model, context, tokens and cost of the agent
/cost                  what the session and its last turn cost
/model [NAME]          the model in use and the backend's models; with NAME, use it from the next request
/stop                  stop the running turn (Ctrl-C does too; a second Ctrl-C leaves it running)
/compact               compact the history now
/clear                 drop the history (same profile)
/agent PROFILE         switch to another agent profile, with a fresh history
/backend PROFILE       use another backends.conf profile
/cd DIR                move the session to DIR
/queue TEXT            queue a prompt behind the running turn
/inject TEXT           put TEXT before the model at the running turn's next step
/rename NAME           rename the session
/skill load|unload NAME   add a skill to the system prompt, or remove it
/proc kill ID          kill one of the agent's tool processes (see its proc/idx file)
/fork [--clean] [NAME] a new session from the agent's history (--clean: its task state alone)
/kill                  end the session, and leave
Any other /word is written to the agent's ctl as typed. A line without / is a prompt. Ctrl-D leaves.
`;

/** What a command did: its text for the screen, and whether sh should end (the session is gone). */
export interface CommandResult {
  text: string;
  leave?: boolean;
}

/** Runs `/word args` against the agent at `agent` (`session/ID/agent/NAME`). Throws when the daemon refuses. */
export async function shellCommand(
  client: SessionClient,
  agent: string,
  line: string,
): Promise<CommandResult> {
  const [word = "", ...rest] = line.slice(1).trim().split(/\s+/);
  const args = rest.join(" ");
  const ctl = (command: string) => client.write(`${agent}/ctl`, `${command}\n`);
  switch (word) {
    case "help":
    case "?":
      return { text: SHELL_HELP };
    case "status":
      return { text: await status(client, agent) };
    case "cost":
      return { text: await cost(client, agent) };
    case "model": {
      if (args) {
        await ctl(`model ${args}`);
        return { text: `model ${args} from the next request\n` };
      }
      const model = keyValues(await client.read(`${agent}/cfg`)).model ?? "";
      const models = (await client.read(`${agent}/models`))
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const [id = "", window] = l.split("\t");
          return `${id === model ? "*" : " "} ${id}${window ? `  (${shortCount(Number(window))} tokens)` : ""}`;
        });
      return { text: `model ${model || "(the profile's)"}\n${models.join("\n")}\n` };
    }
    case "stop":
      await ctl("stop");
      return { text: "[stopping]\n" };
    case "compact":
      await ctl("compact");
      return { text: "compacted\n" };
    case "clear":
      await ctl("clear");
      return { text: "the history is cleared\n" };
    case "kill":
      await ctl("kill");
      return { text: "the session is ended\n", leave: true };
    default:
      await ctl(line.slice(1).trim());
      return { text: "" };
  }
}

async function status(client: SessionClient, agent: string): Promise<string> {
  const cfg = keyValues(await client.read(`${agent}/cfg`));
  const activity = await readActivity(client, agent);
  const usage = (await readUsage(client, agent)).session;
  const context = (await client.read(`${agent}/ctxsz`).catch(() => "unknown\n")).trim();
  const doing = activity.tool ? `${activity.state} ${activity.tool}` : activity.state;
  return [
    `${doing} · profile ${cfg.profile} · backend ${cfg.backend || "(default)"} · model ${cfg.model || "(the profile's)"}`,
    `context ${context}`,
    usage
      ? `${usage.inputTokens} tokens in / ${usage.outputTokens} out this session, in ${usage.requests} requests`
      : "no tokens yet",
    await cost(client, agent),
  ].join("\n");
}

async function cost(client: SessionClient, agent: string): Promise<string> {
  const [session = "", last = ""] = (await client.read(`${agent}/cost`)).split("\n");
  const usage = (await readUsage(client, agent)).session;
  const tokens = usage ? ` (${usage.inputTokens} tokens in / ${usage.outputTokens} out)` : "";
  return `${session}${tokens} · ${last}\n`;
}
