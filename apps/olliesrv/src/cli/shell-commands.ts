import type { Agent } from "@ollie/client";
import { dollars } from "../dollars.js";
import { shortCount } from "../frontend/agent-text.js";

/** `ollie sh`'s slash commands; what is not among them goes to the agent's ctl as it was typed. */
export const SHELL_HELP = `/help                  this list
/status                state, model, context, tokens and cost of the agent
/cost                  what the session and its last turn cost
/model [NAME]          the model in use and the backend's models; with NAME, use it from the next request
/stop                  stop the running turn (Ctrl-C does too; a second Ctrl-C leaves it running)
/last                  the last tool result, whole (Ctrl-O too)
/compact               compact the history now
/clear                 drop the history (same profile)
/agent [PROFILE]       the agent profile in use; with PROFILE, switch to it, with a fresh history
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

/** Runs `/word args` against `agent`. Throws when the daemon refuses. */
export async function shellCommand(agent: Agent, line: string): Promise<CommandResult> {
  const [word = "", ...rest] = line.slice(1).trim().split(/\s+/);
  const args = rest.join(" ");
  switch (word) {
    case "help":
    case "?":
      return { text: SHELL_HELP };
    case "status":
      return { text: await status(agent) };
    case "cost":
      return { text: await cost(agent) };
    case "model": {
      if (args) {
        await agent.ctl(`model ${args}`);
        return { text: `model ${args} from the next request\n` };
      }
      const model = (await agent.cfg()).model ?? "";
      const models = (await agent.models()).map(({ id, contextLength }) => {
        const window = contextLength ? `  (${shortCount(contextLength)} tokens)` : "";
        return `${id === model ? "*" : " "} ${id}${window}`;
      });
      return { text: `model ${model || "(the profile's)"}\n${models.join("\n")}\n` };
    }
    case "stop":
      await agent.ctl("stop");
      return { text: "[stopping]\n" };
    case "compact":
      await agent.ctl("compact");
      return { text: "compacted\n" };
    case "clear":
      await agent.ctl("clear");
      return { text: "the history is cleared\n" };
    case "agent": {
      if (!args) return { text: `profile ${(await agent.cfg()).profile}\n` };
      const was = (await agent.cfg()).profile;
      await agent.ctl(`agent ${args}`);
      return { text: `now running profile ${args} (was ${was}), with a fresh history\n` };
    }
    case "kill":
      await agent.ctl("kill");
      return { text: "the session is ended\n", leave: true };
    default:
      await agent.ctl(line.slice(1).trim());
      return { text: "" };
  }
}

async function status(agent: Agent): Promise<string> {
  const cfg = await agent.cfg();
  const activity = await agent.activity();
  const usage = (await agent.usage()).session;
  const context = await agent.contextSize().then(
    (c) => `${c.tokens}/${c.window} ${(c.fraction * 100).toFixed(1)}%`,
    () => "unknown",
  );
  const doing = activity.tools.length > 0 ? `${activity.state} ${activity.tools.join(",")}` : activity.state;
  return [
    `${doing} · profile ${cfg.profile} · backend ${cfg.backend ?? "(default)"} · model ${cfg.model ?? "(the profile's)"}`,
    `context ${context}`,
    usage
      ? `${usage.inputTokens} tokens in / ${usage.outputTokens} out this session, in ${usage.requests} requests`
      : "no tokens yet",
    await cost(agent),
  ].join("\n");
}

async function cost(agent: Agent): Promise<string> {
  const spent = await agent.cost();
  const usage = (await agent.usage()).session;
  const tokens = usage ? ` (${usage.inputTokens} tokens in / ${usage.outputTokens} out)` : "";
  return `${dollars(spent.session)} session${tokens} · ${dollars(spent.lastTurn)} last turn\n`;
}
