import { readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { ToolError } from "../tool-io.js";
import type { BrokerRequest, ServerStatus } from "./broker-protocol.js";
import { LanguageServer } from "./language-server.js";
import {
  findCommand,
  LANGUAGE_SERVERS,
  type LanguageServerSpec,
  specFor,
  workspaceRoot,
} from "./language-servers.js";
import * as ops from "./operations.js";

export interface BrokerOptions {
  /** A server unused this long is shut down. */
  serverIdleMs: number;
  /** Where the broker says what it starts and stops (its standard output: proc/ID/output). */
  log: (line: string) => void;
}

/**
 * Keeps one language server per (language, workspace root), started on first use, and runs the lsp_* tools'
 * requests on them. A server that exits is forgotten (the next request starts another); one unused for
 * `serverIdleMs` is shut down.
 */
/** What a retired server answers in place of running a request. */
const RETIRED = Symbol("retired");

export class Broker {
  private readonly servers = new Map<string, Promise<LanguageServer>>();
  private lastRequest = Date.now();

  constructor(private readonly options: BrokerOptions) {}

  /** How many servers run or start. */
  get size(): number {
    return this.servers.size;
  }

  /** When the last request came. */
  get idleSince(): number {
    return this.lastRequest;
  }

  async handle(req: BrokerRequest): Promise<string> {
    this.lastRequest = Date.now();
    if (req.op === "symbols" && (req.query !== undefined || !req.path)) {
      const file = await this.sourceFileFor(req.path ?? req.cwd);
      return this.run(req, file, ops.workspaceSymbols);
    }
    if (!req.path) throw new ToolError("missing argument 'path'");
    const body = {
      definition: ops.definition,
      references: ops.references,
      hover: ops.hover,
      diagnostics: ops.diagnostics,
      symbols: ops.documentSymbols,
      rename: ops.rename,
    }[req.op];
    if (!body) throw new ToolError(`unknown operation '${req.op}'`);
    const info = await stat(req.path).catch(() => undefined);
    if (!info) throw new ToolError(`${req.path}: no such file`);
    if (!info.isFile()) throw new ToolError(`${req.path} is not a file`);
    return this.run(req, req.path, body);
  }

  private async run(req: BrokerRequest, file: string, body: (op: ops.Operation) => Promise<string>) {
    // A request that found a server just as the sweep retired it goes to the server started after it.
    for (let attempt = 0; ; attempt++) {
      const server = await this.serverFor(file, req.searchPath);
      const answer = await server.exclusive(async () =>
        server.retiring ? RETIRED : body({ server, req, file }),
      );
      if (answer !== RETIRED) return answer;
      if (attempt > 0) throw new ToolError(`${server.spec.command} was shut down while asked; ask again`);
    }
  }

  /** The server for `file`'s language and workspace: running, starting, or started now. */
  async serverFor(file: string, searchPath: string): Promise<LanguageServer> {
    const spec = specFor(file);
    const root = await workspaceRoot(spec, file);
    const key = `${spec.language}\0${root}`;
    const known = this.servers.get(key);
    if (known) {
      const server = await known.catch(() => undefined);
      if (server && !server.ended && !server.retiring) return server;
      if (this.servers.get(key) === known) this.servers.delete(key);
    }
    let starting = this.servers.get(key);
    if (!starting) {
      starting = this.start(spec, root, file, searchPath, key);
      this.servers.set(key, starting);
      starting.catch(() => {
        if (this.servers.get(key) === starting) this.servers.delete(key);
      });
    }
    return starting;
  }

  private async start(
    spec: LanguageServerSpec,
    root: string,
    file: string,
    searchPath: string,
    key: string,
  ): Promise<LanguageServer> {
    const command = await findCommand(spec, file, searchPath);
    const server = await LanguageServer.start(spec, root, command);
    this.options.log(`started ${spec.command} for ${root} (pid ${server.pid})`);
    void server.exited.then(async () => {
      this.options.log(`${server.ended} (${root})`);
      const current = this.servers.get(key);
      if ((await current?.catch(() => undefined)) === server && this.servers.get(key) === current)
        this.servers.delete(key);
    });
    return server;
  }

  /** A source file to open for a workspace-wide query under `path` (a file, or a directory searched for one). */
  private async sourceFileFor(path: string): Promise<string> {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new ToolError(`${path}: no such file or directory`);
    if (info.isFile()) return path;
    // The languages whose project markers the directory holds come first (a TypeScript project with a
    // script or two in Python is searched as TypeScript); any known language otherwise.
    const marked: LanguageServerSpec[] = [];
    for (const spec of LANGUAGE_SERVERS) {
      const found = await Promise.all(
        spec.rootMarkers.map((m) => stat(join(path, m)).catch(() => undefined)),
      );
      if (found.some(Boolean)) marked.push(spec);
    }
    for (const specs of [marked, LANGUAGE_SERVERS]) {
      const file = await findSource(path, new Set(specs.flatMap((s) => Object.keys(s.extensions))));
      if (file) return file;
    }
    throw new ToolError(`no source file of a known language under ${path}: give path, a file of the project`);
  }

  status(): Promise<ServerStatus[]> {
    return Promise.all(
      [...this.servers.values()].map(async (s) => {
        const server = await s.catch(() => undefined);
        return server && !server.ended
          ? [
              {
                language: server.spec.language,
                root: server.root,
                pid: server.pid,
                command: server.command,
                documents: server.documents.size,
                idleMs: Date.now() - server.lastUsed,
              },
            ]
          : [];
      }),
    ).then((all) => all.flat());
  }

  /** Shuts down the servers unused for the idle time. */
  async sweep(): Promise<void> {
    for (const [key, starting] of [...this.servers]) {
      const server = await starting.catch(() => undefined);
      if (!server || server.pending > 0 || Date.now() - server.lastUsed <= this.options.serverIdleMs)
        continue;
      // Retired first, and out of the table: a request arriving now starts another server rather than
      // meeting this one's shutdown; the shutdown waits for what was already queued on it.
      server.retiring = true;
      if (this.servers.get(key) === starting) this.servers.delete(key);
      this.options.log(`shutting down ${server.spec.command} for ${server.root}: idle`);
      await server.exclusive(() => server.shutdown());
    }
  }

  async close(): Promise<void> {
    const servers = await Promise.all([...this.servers.values()].map((s) => s.catch(() => undefined)));
    await Promise.all(servers.map((s) => s?.shutdown(1000)));
  }
}

/** The first file with one of `extensions` under `path`, breadth first, skipping dependencies and hidden directories. */
async function findSource(path: string, extensions: ReadonlySet<string>): Promise<string | undefined> {
  const queue = [path];
  for (let looked = 0; queue.length > 0 && looked < 200; looked++) {
    const dir = queue.shift()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const sorted = entries.sort((a, b) => a.name.localeCompare(b.name));
    const file = sorted.find((e) => e.isFile() && extensions.has(extname(e.name).toLowerCase()));
    if (file) return join(dir, file.name);
    for (const e of sorted)
      if (e.isDirectory() && !e.name.startsWith(".") && e.name !== "node_modules")
        queue.push(join(dir, e.name));
  }
  return undefined;
}
