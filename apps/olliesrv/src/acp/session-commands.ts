import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk";
import type { Agent, SkillInfo } from "@ollie/client";

/** `/compact`: compacts the history now, as `compact` on the agent's ctl does. */
const COMPACT: AvailableCommand = {
  name: "compact",
  description: "compact the history now: a summary in place of the older messages",
};

/**
 * The commands the editor offers after `/`: `/compact`, and one per skill, which loads it into the agent's
 * system prompt (then, with text after it, prompts with that text).
 */
export async function availableCommands(agent: Agent): Promise<SessionUpdate> {
  const skills = await agent.skills();
  return {
    sessionUpdate: "available_commands_update",
    availableCommands: [
      COMPACT,
      ...skills.map((s) => ({
        name: s.name,
        description: `${s.loaded ? "(loaded) " : ""}load the skill: ${s.description}`,
        input: { hint: "what to do with it (optional)" },
      })),
    ],
  };
}

/** A prompt that is a command: its name and the text after it. */
export interface CommandPrompt {
  name: string;
  rest: string;
}

/** The command a prompt's text starts with, when it names one of `names`. */
export function commandOf(text: string, names: readonly string[]): CommandPrompt | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match || !names.includes(match[1]!)) return undefined;
  return { name: match[1]!, rest: (match[2] ?? "").trim() };
}

/**
 * Runs a command prompt: `/compact` compacts; `/SKILL` loads the skill (once), one of `skills` as read. Returns the text to prompt
 * with afterwards (what followed the command), or what to tell the editor when nothing is left to prompt.
 */
export async function runCommand(
  agent: Agent,
  command: CommandPrompt,
  skills: readonly SkillInfo[],
): Promise<{ prompt: string } | { said: string }> {
  if (command.name === COMPACT.name) {
    await agent.ctl("compact");
    return { said: "The history is compacted." };
  }
  const skill = skills.find((s) => s.name === command.name);
  if (skill && !skill.loaded) await agent.ctl(`skill load ${skill.name}`);
  if (command.rest !== "") return { prompt: command.rest };
  return { said: `The skill ${command.name} is loaded.` };
}
