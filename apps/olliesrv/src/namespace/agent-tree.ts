import { dir, file, log, type NodeSpec, text, wait } from "@ollie/virtfs";
import { dollars } from "../dollars.js";
import { oneLine } from "../one-line.js";
import type { AgentSlot } from "../session/agent-slot.js";
import type { Session } from "../session/session.js";
import type { Sessions } from "../session/sessions.js";
import { stepLimit } from "../session/step-limit.js";
import { agentCtl, agentOperations } from "./agent-ctl.js";
import { checkpointsFile } from "./checkpoint-files.js";
import { fail } from "./fail.js";
import { forkFile } from "./fork-file.js";
import { agentBackendProfile, effectiveBackend, modelsFile } from "./models-file.js";
import { procDir } from "./proc-dir.js";
import { promptFile, promptsDir } from "./prompt-file.js";

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/**
 * For the files whose content is made by waking the agent, asking toolsrv or reading profiles (or is the
 * whole chat): made at each open, as ever, but not for a stat or a listing, which report 0 for them.
 */
const atOpenOnly = { size: false } as const;

/** A remote agent's host, its connection's state, and why it was lost when it was. */
function remoteLines(slot: AgentSlot): string[] {
  const remote = slot.remote;
  if (!remote) return [];
  return [
    `remote=${remote.destination}`,
    `remote_state=${remote.state}`,
    ...(remote.lost ? [`remote_lost=${oneLine(remote.lost)}`] : []),
  ];
}

/** `session/{id}/agent/{name}/`: one agent's files. See NAMESPACE.md. */
export function agentTree(sessions: Sessions, session: Session, slot: AgentSlot, group: string) {
  const writable = { mode: 0o664, owner: slot.uname, group };
  // A group named for the agent, not its session: no session admits anyone to it, so it holds the owner alone.
  const onlyAgentAndOwner = { mode: 0o440, owner: slot.uname, group: slot.uname };
  const files: NodeSpec[] = [
    file(
      "cfg",
      text(
        async () => {
          const { backend, model } = await effectiveBackend(sessions.environment, slot);
          const maxSteps = await stepLimit(slot);
          return `${[
            `name=${slot.name}`,
            `uname=${slot.uname}`,
            `profile=${slot.choices.profile}`,
            `backend=${backend}`,
            `model=${model}`,
            ...(maxSteps !== undefined ? [`maxsteps=${maxSteps}`] : []),
            `cwd=${session.cwd}`,
            `skills=${slot.skills.join(",")}`,
            `state=${slot.shown.state.get()}`,
            ...remoteLines(slot),
          ].join("\n")}\n`;
        },
        {
          write: async (body, ctx) => {
            const op = agentOperations(sessions, session, slot);
            for (const line of body.split("\n").filter((l) => l.trim() !== "")) {
              const m = /^\s*(model|backend|profile|maxsteps)\s*=\s*(.+?)\s*$/.exec(line);
              if (!m) fail(`cfg takes model=, backend=, profile= and maxsteps= lines, not '${line.trim()}'`);
              await (m[1] === "profile"
                ? op.agent(m[2]!)
                : m[1] === "model"
                  ? op.model(m[2]!)
                  : m[1] === "maxsteps"
                    ? op.maxSteps(m[2]!, ctx.uname)
                    : op.backend(m[2]!));
            }
          },
          ...atOpenOnly,
        },
      ),
      writable,
    ),
    file("ctl", agentCtl(sessions, session, slot), writable),
    forkFile(sessions, session, slot, group),
    file(
      "state",
      text(() => `${slot.shown.state.get()}\n`),
    ),
    file("statewait", wait(slot.shown.state)),
    file(
      "activity",
      text(() => slot.shown.activity.text()),
    ),
    file(
      "turns",
      text(() => `${slot.shown.turns.get()}\n`),
    ),
    file("turnwait", wait(slot.shown.turns)),
    file(
      "outcome",
      text(() => (slot.shown.lastOutcome ? `${slot.shown.lastOutcome}\n` : "")),
    ),
    promptFile("prompt", slot, group),
    promptFile("fifo.in", slot, group),
    promptsDir(slot),
    file(
      "queue",
      text(() => slot.shown.waiting.text()),
    ),
    file("fifo.out", log(slot.shown.replies, { from: "end" })),
    procDir(slot, group),
    file(
      "prompt.prev",
      text(() => (slot.lastPrompt ? `${slot.lastPrompt}\n` : "")),
    ),
    file(
      "chat",
      text(
        () =>
          slot.shown.chat.stream.read(
            slot.shown.chat.stream.start,
            slot.shown.chat.stream.end - slot.shown.chat.stream.start,
          ),
        atOpenOnly,
      ),
    ),
    file(
      "offset",
      text(() => `${slot.shown.chat.stream.end}\n`),
    ),
    file("tail", log(slot.shown.chat.stream, { from: "end" })),
    // What commands printed — tools' results, prompt commands' output — is the agent's and the owner's alone.
    file(
      "context",
      text(async () => json((await slot.activate()).history), atOpenOnly),
      onlyAgentAndOwner,
    ),
    file(
      "systemprompt",
      text(async () => (await slot.activate()).runtime.preamble, atOpenOnly),
      onlyAgentAndOwner,
    ),
    file(
      "usage",
      text(() => {
        const u = slot.usage();
        return json({ turn: u.turn, session: u.session, compaction: u.compaction });
      }),
    ),
    file(
      "cost",
      text(() => {
        const u = slot.usage();
        const compaction = u.compaction?.costUsd ?? 0;
        return `${dollars(u.session?.costUsd ?? 0)} session\n${dollars(u.lastTurnCostUsd)} last turn\n${dollars(compaction)} compaction (part of the session)\n`;
      }),
    ),
    file(
      "ctxsz",
      text(async () => {
        const c = await (await slot.activate()).context();
        return `${c.tokens}/${c.contextLength} ${(c.fraction * 100).toFixed(1)}%\n`;
      }, atOpenOnly),
    ),
    modelsFile(sessions.environment, () => agentBackendProfile(sessions.environment, slot)),
    file(
      "tools",
      text(async () => {
        const tools = (await slot.activate()).runtime.toolSchemas;
        return tools.map((t) => `${t.name}\t${t.description.split("\n", 1)[0]}\n`).join("");
      }, atOpenOnly),
    ),
    file(
      "toolsrv.loaded",
      text(async () => json((await slot.activate()).runtime.toolSchemas.map((t) => t.name)), atOpenOnly),
    ),
    file(
      "toolsrv.rev",
      text(async () => `${(await slot.activate()).runtime.toolRevision}\n`, atOpenOnly),
    ),
    file(
      "checkpoints",
      text(() => checkpointsFile(sessions, session, slot), atOpenOnly),
    ),
    file(
      "skills",
      text(() =>
        [...sessions.environment.making.skills().values()]
          .map((s) => `${slot.skills.includes(s.name) ? "*" : " "} ${s.name}\t${s.description}\n`)
          .join(""),
      ),
    ),
  ];
  const agentOwns = { owner: slot.uname, group };
  return dir(
    slot.name,
    files.map((node) => (node.kind === "alias" ? node : { ...node, perm: { ...agentOwns, ...node.perm } })),
    { mode: 0o555, ...agentOwns },
  );
}
