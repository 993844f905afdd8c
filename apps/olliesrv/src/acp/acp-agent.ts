import { isAbsolute } from "node:path";
import {
  type AgentApp,
  type AgentContext,
  agent as acpAgent,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { NoSuchSessionError, type OllieClient } from "@ollie/client";
import { DIRECTORY_PROFILE } from "../cli/directory-session.js";
import { type AcpSession, acpSession, usageUpdate } from "./acp-session.js";
import { sessionMcpServers } from "./mcp-servers.js";
import { SessionPermissions } from "./permissions.js";
import { promptText } from "./prompt-text.js";
import { PromptTurn, TurnFailedError } from "./prompt-turn.js";
import { replayUpdates } from "./replay.js";
import { availableCommands, commandOf, runCommand } from "./session-commands.js";
import { availableModes, MODEL_OPTION, sessionConfig, sessionModes } from "./session-options.js";

/** What `ollie acp` is given: how to reach olliesrv, the profile of its sessions, where its log goes. */
export interface AcpAgentOptions {
  reach: () => Promise<OllieClient>;
  /** `--agent`: the profile of the sessions it makes (default: the coding profile). */
  profile?: string | undefined;
  log: (line: string) => void;
}

/** A failure of ollie's own, as the JSON-RPC error the editor shows: its message as it is. */
const failed = (error: unknown) =>
  error instanceof RequestError ? error : new RequestError(-32603, (error as Error).message);

/**
 * `ollie acp`'s side of the Agent Client Protocol: an editor's sessions are Ollie sessions, made (or found)
 * at olliesrv, prompted through their main agent, their turns told back as session/update notifications.
 * olliesrv is reached at `initialize` (and started if it is not running, as every `ollie` command does).
 */
export function ollieAcpAgent(options: AcpAgentOptions): AgentApp {
  const sessions = new Map<string, AcpSession>();
  let client: OllieClient | undefined;
  let editor: AgentContext | undefined;

  const connected = () => {
    if (!client) throw RequestError.invalidRequest(undefined, "initialize first");
    return client;
  };
  const known = (sessionId: string) => {
    const s = sessions.get(sessionId);
    if (!s) throw RequestError.sessionNotFound(sessionId);
    return s;
  };
  const send = (sessionId: string) => async (update: SessionUpdate) => {
    await editor?.notify("session/update", { sessionId, update });
  };
  /** At load, the session keeps the servers it was made with: they are its agents' tools' history. */
  const mcpServersKept = (sessionId: string, servers: McpServer[]) => {
    if (servers.length > 0)
      options.log(
        `session ${sessionId}: loaded with the MCP servers it was made with; the editor's (${servers.map((s) => s.name).join(", ")}) are not taken`,
      );
  };
  const open = async (id: string, cwd: string): Promise<AcpSession> => {
    const c = connected();
    const s = acpSession(c.session(id), cwd);
    s.permissions = await SessionPermissions.open(c, id, s.tools, (request) =>
      editor ? editor.request("session/request_permission", request) : Promise.reject(new Error("no editor")),
    );
    sessions.set(id, s);
    return s;
  };
  const described = async (s: AcpSession) => {
    const agent = s.session.agent();
    const cfg = await agent.cfg();
    const [modes, configOptions] = await Promise.all([
      sessionModes(connected(), cfg),
      sessionConfig(agent, cfg),
    ]);
    return { modes, configOptions };
  };
  /** The session's commands, told once the editor knows the session (it may be answered first). */
  const tellCommands = (s: AcpSession) => {
    setImmediate(() => {
      void availableCommands(s.session.agent())
        .then(send(s.session.id))
        .catch((error: unknown) => options.log(`session ${s.session.id}: ${(error as Error).message}`));
    });
  };
  /**
   * A prompt that is a command (`/compact`, `/SKILL [TEXT]`) is run: the text it leaves, if any, is the
   * prompt; undefined when nothing is left to prompt (the editor was told what the command did).
   */
  const afterCommand = async (s: AcpSession, text: string): Promise<string | undefined> => {
    if (!text.startsWith("/")) return text;
    const agent = s.session.agent();
    const skills = await agent.skills();
    const command = commandOf(text, [...skills.map((skill) => skill.name), "compact"]);
    if (!command) return text;
    const done = await runCommand(agent, command, skills);
    tellCommands(s);
    if ("prompt" in done) return done.prompt;
    await send(s.session.id)({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: done.said },
    });
    return undefined;
  };

  const app = acpAgent({ name: "ollie" })
    .onConnect((connection) => {
      editor = connection.client;
      void connection.closed.finally(async () => {
        await Promise.all([...sessions.values()].map((s) => s.permissions?.close()));
        client?.close();
      });
    })
    .onRequest("initialize", async () => {
      try {
        client ??= await options.reach();
      } catch (error) {
        throw new RequestError(-32603, `cannot reach olliesrv: ${(error as Error).message}`);
      }
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
        },
        authMethods: [],
        agentInfo: { name: "ollie", title: "Ollie", version: __PACKAGE_VERSION__ },
      };
    })
    .onRequest("session/new", async ({ params }) => {
      if (!isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: params.cwd }, "cwd must be an absolute path");
      try {
        const mcpServers = sessionMcpServers(params.mcpServers);
        const { id } = await connected().newSession({
          agent: options.profile ?? DIRECTORY_PROFILE,
          cwd: params.cwd,
          ...(mcpServers && { mcpServers }),
        });
        const s = await open(id, params.cwd);
        const answer = { sessionId: id, ...(await described(s)) };
        tellCommands(s);
        return answer;
      } catch (error) {
        throw failed(error);
      }
    })
    .onRequest("session/load", async ({ params }) => {
      try {
        const entry = await connected()
          .findSession(params.sessionId)
          .catch((error: unknown) => {
            throw error instanceof NoSuchSessionError
              ? RequestError.sessionNotFound(params.sessionId)
              : error;
          });
        mcpServersKept(entry.id, params.mcpServers);
        const cwd = (await connected().session(entry.id).agent().cfg()).cwd;
        const s = sessions.get(entry.id) ?? (await open(entry.id, cwd));
        const history = await s.session.agent().history();
        for (const update of replayUpdates(history, s.tools)) await send(entry.id)(update);
        const answer = await described(s);
        tellCommands(s);
        return answer;
      } catch (error) {
        throw failed(error);
      }
    })
    .onRequest("session/prompt", async ({ params, signal }) => {
      const s = known(params.sessionId);
      if (s.turn)
        throw RequestError.invalidRequest(
          { sessionId: params.sessionId },
          `a prompt is running in session ${params.sessionId}: wait for its answer, or cancel it`,
        );
      const turn = new PromptTurn(s.session, { send: send(params.sessionId), tools: s.tools });
      s.turn = turn;
      const cancel = () => void turn.cancel().catch(() => {});
      signal.addEventListener("abort", cancel, { once: true });
      try {
        const text = await afterCommand(s, promptText(params.prompt));
        if (text === undefined) return { stopReason: "end_turn" as const };
        const stopReason = await turn.run(text, signal);
        const usage = await usageUpdate(s.session).catch(() => undefined);
        if (usage) await send(params.sessionId)(usage);
        return { stopReason };
      } catch (error) {
        throw error instanceof TurnFailedError ? new RequestError(-32603, error.message) : failed(error);
      } finally {
        signal.removeEventListener("abort", cancel);
        s.turn = undefined;
      }
    })
    .onNotification("session/cancel", async ({ params }) => {
      await sessions.get(params.sessionId)?.turn?.cancel();
    })
    .onRequest("session/set_mode", async ({ params }) => {
      const s = known(params.sessionId);
      if (!(await availableModes(connected())).some((m) => m.id === params.modeId))
        throw RequestError.invalidParams({ modeId: params.modeId }, `no profile ${params.modeId}`);
      await s.session
        .agent()
        .configure({ profile: params.modeId })
        .catch((error: unknown) => {
          throw failed(error);
        });
      return {};
    })
    .onRequest("session/set_config_option", async ({ params }) => {
      const s = known(params.sessionId);
      if (params.configId !== MODEL_OPTION || typeof params.value !== "string")
        throw RequestError.invalidParams({ configId: params.configId }, `no option ${params.configId}`);
      const agent = s.session.agent();
      await agent.configure({ model: params.value }).catch((error: unknown) => {
        throw failed(error);
      });
      return { configOptions: await sessionConfig(agent, await agent.cfg()) };
    });
  return app;
}
