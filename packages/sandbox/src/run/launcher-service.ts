import { closeSync, constants, openSync } from "node:fs";
import { Socket } from "node:net";
import { constants as os } from "node:os";
import { execa, type ResultPromise } from "execa";
import { LauncherServiceStoppedError, SandboxUnavailableError } from "../errors.js";

/** A command started by the launcher service: its streams, and the call's launcher to signal. */
export interface ServedCommand {
  /** The call's launcher: `endSandboxed(pid)` ends the command and everything it started. */
  pid: number;
  stdin: Socket;
  stdout: Socket;
  stderr: Socket;
  /**
   * How it ended (the command's own exit status or signal, and the limits its launcher reported it reached:
   * `processes`, `memory`); rejects, with a LauncherServiceStoppedError, only if the service itself died.
   */
  exit: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; reported: string[] }>;
}

interface Started {
  pid: number;
  fds: [number, number, number];
}

type Exit = Awaited<ServedCommand["exit"]>;

const SIGNALS = new Map(Object.entries(os.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

function decode(status: number, reported: string[]): Exit {
  const signal = status & 0x7f;
  return signal === 0
    ? { exitCode: (status >> 8) & 0xff, signal: null, reported }
    : { exitCode: null, signal: SIGNALS.get(signal) ?? null, reported };
}

function request(fields: readonly string[]): Buffer {
  for (const f of fields) {
    if (f.includes("\0")) throw new TypeError(`a command's argument or environment holds a NUL byte: ${f}`);
  }
  const payload = Buffer.from(fields.map((f) => `${f}\0`).join(""));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(payload.length);
  return Buffer.concat([length, payload]);
}

/**
 * A launcher started once with `--serve`, which then starts sandboxed commands on request: a call costs a
 * fork of that small process, not a fork of Node and an exec of the launcher. Each call still runs through a
 * launcher of its own — the same checks, sandbox and process-tree supervision as `sandboxCommand` gives.
 * The command's pipes are this process's own, opened through the service's `/proc/PID/fd`.
 */
class LauncherService {
  private readonly child: ResultPromise;
  private readonly starting = new Map<string, { resolve(s: Started): void; reject(e: Error): void }>();
  private readonly running = new Map<string, { resolve(e: Exit): void; reject(e: Error): void }>();
  /** Each started call's exit, from its "started" line until `run` hands it over. */
  private readonly exits = new Map<string, Promise<Exit>>();
  private nextId = 1;
  private lines = "";
  private said = "";
  ended: Error | undefined;

  constructor(readonly launcher: string) {
    // A session of its own: a terminal's Ctrl-C or hangup meant for Node does not reach the service or the
    // commands it started (Node's own end does: the service follows it).
    this.child = execa(launcher, ["--serve"], {
      detached: true,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
      extendEnv: false,
      env: {},
    });
    this.child.stdout!.setEncoding("utf8").on("data", (chunk: string) => this.read(chunk));
    this.child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      this.said = (this.said + chunk).slice(-2000);
    });
    this.child.stdin!.on("error", () => {});
    void this.child.then((result) => {
      // Its last words explain an exit of its own; a signal is its own explanation.
      const said = this.said.trim().split("\n").pop();
      const why = result.signal
        ? `killed by ${result.signal}`
        : `exit status ${result.exitCode}${said ? `: ${said}` : ""}`;
      this.end(new LauncherServiceStoppedError(launcher, why));
    });
    this.idle();
  }

  /** Keeps Node running only while calls are in flight. */
  private idle(): void {
    const busy = this.starting.size + this.running.size > 0;
    const handles = [this.child.stdout, this.child.stderr, this.child.stdin] as unknown as Socket[];
    for (const h of handles) (busy ? h.ref : h.unref)?.call(h);
    (busy ? this.child.ref : this.child.unref).call(this.child);
  }

  private end(error: Error): void {
    this.ended ??= error;
    for (const waiter of [...this.starting.values(), ...this.running.values()]) waiter.reject(error);
    this.starting.clear();
    this.running.clear();
    this.idle();
  }

  private read(chunk: string): void {
    this.lines += chunk;
    for (let nl = this.lines.indexOf("\n"); nl >= 0; nl = this.lines.indexOf("\n")) {
      const [verb, id = "", ...rest] = this.lines.slice(0, nl).split(" ");
      this.lines = this.lines.slice(nl + 1);
      if (verb === "started") {
        const [pid, ...fds] = rest.map(Number);
        const exit = new Promise<Exit>((resolve, reject) => this.running.set(id, { resolve, reject }));
        exit.catch(() => {});
        this.exits.set(id, exit);
        this.starting.get(id)?.resolve({ pid: pid!, fds: fds as Started["fds"] });
      } else if (verb === "exited") {
        this.running.get(id)?.resolve(decode(Number(rest[0]), rest.slice(1)));
        this.running.delete(id);
      } else if (verb === "failed") {
        const why = rest.join(" ");
        this.starting
          .get(id)
          ?.reject(
            new SandboxUnavailableError(
              `The sandbox launcher service could not start a command (${why})`,
              "Check the limits on processes and open files",
            ),
          );
      }
      this.starting.delete(id);
      this.idle();
    }
  }

  private send(frame: Buffer): void {
    this.child.stdin!.write(frame);
  }

  async run(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<ServedCommand> {
    if (this.ended) throw this.ended;
    const id = String(this.nextId++);
    const vars = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
    const frame = request(["run", id, cwd, String(args.length), ...args, String(vars.length), ...vars]);
    const started = new Promise<Started>((resolve, reject) => this.starting.set(id, { resolve, reject }));
    this.send(frame);
    this.idle();
    const { pid, fds } = await started;
    const exit = this.exits.get(id)!;
    this.exits.delete(id);
    const opened: number[] = [];
    try {
      for (const [i, fd] of fds.entries()) {
        opened.push(
          openSync(`/proc/${this.child.pid}/fd/${fd}`, i === 0 ? constants.O_WRONLY : constants.O_RDONLY),
        );
      }
    } catch (err) {
      for (const fd of opened) closeSync(fd);
      process.kill(pid, "SIGKILL");
      throw err;
    } finally {
      this.send(request(["opened", id]));
    }
    const [stdin, stdout, stderr] = opened.map(
      (fd, i) => new Socket({ fd, readable: i > 0, writable: i === 0 }),
    ) as [Socket, Socket, Socket];
    stdin.on("error", () => {}); // the command need not read its input
    return { pid, stdin, stdout, stderr, exit };
  }
}

const services = new Map<string, LauncherService>();

/** The launcher service for a launcher binary, started on first use and again if it ever stops. */
export function launcherService(launcher: string): LauncherService {
  let service = services.get(launcher);
  if (!service || service.ended) {
    service = new LauncherService(launcher);
    services.set(launcher, service);
  }
  return service;
}
