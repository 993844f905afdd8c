// biome-ignore lint/style/noRestrictedImports: see run() below — execa's cost grows with the square of the descriptors handed over.
import { spawn } from "node:child_process";
import type { Socket } from "node:net";
import { type EnsureOptions, ensureLauncher } from "../launcher/ensure-launcher.js";
import type { PeerCredentials } from "./peer-credential-types.js";

/** How long the launcher may take to answer for a batch of sockets before it is given up on. */
const LAUNCHER_TIMEOUT_MS = 10_000;

/**
 * Asks the launcher (`--peer-cred FD...`) about each socket, handed to it as descriptors 3 and up: one
 * answer per socket, in order — its credentials, or an Error saying why they could not be told. Throws
 * when the launcher cannot be run at all.
 */
export async function askLauncher(
  sockets: Socket[],
  options: EnsureOptions,
): Promise<Array<PeerCredentials | Error>> {
  if (sockets.length === 0) return [];
  const launcher = await ensureLauncher(options);
  const fds = sockets.map((_, i) => 3 + i);
  const { status, stdout, stderr } = await run(launcher.path, ["--peer-cred", ...fds.map(String)], sockets);
  if (status !== 0)
    throw new Error(`cannot tell who is at the other end of the socket: ${stderr.trim() || status}`);
  const lines = new Map<number, string>();
  for (const line of stdout.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) lines.set(Number(line.slice(0, space)), line.slice(space + 1));
  }
  return fds.map((fd) => parseAnswer(lines.get(fd)));
}

/**
 * Runs the launcher with `sockets` as its descriptors 3 and up, and collects what it prints. Not execa:
 * execa compares every pair of stdio items, which costs this process about half a millisecond per socket
 * (150 ms for a batch of 256, against 10 ms here) — time taken from every other client while a flood is
 * identified. `--peer-cred` starts nothing that could outlive it, and is killed if it does not answer.
 */
function run(
  path: string,
  args: string[],
  sockets: Socket[],
): Promise<{ status: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(path, args, { stdio: ["ignore", "pipe", "pipe", ...sockets], env: {} });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => {
      stderr = `the launcher did not answer in ${LAUNCHER_TIMEOUT_MS / 1000} s`;
      child.kill("SIGKILL");
    }, LAUNCHER_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ status: error.message, stdout, stderr });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ status: code ?? `killed by ${signal}`, stdout, stderr });
    });
  });
}

/** One line of the launcher's answer, after its descriptor: six numbers, or `! WHY`. */
function parseAnswer(line: string | undefined): PeerCredentials | Error {
  const found = line && /^(\d+) (\d+) (\d+) (\d+) (\d+) (-?\d+)$/.exec(line);
  if (!found) {
    const why = line?.startsWith("! ")
      ? line.slice(2)
      : `the launcher said ${JSON.stringify(line ?? "nothing")}`;
    return new Error(`cannot tell who is at the other end of the socket: ${why}`);
  }
  const [pid, uid, gid, noNewPrivs, seccompMode, filters] = found.slice(1).map(Number) as number[];
  return {
    pid: pid!,
    uid: uid!,
    gid: gid!,
    confinement: {
      noNewPrivs: noNewPrivs === 1,
      seccompMode: seccompMode!,
      seccompFilters: filters! < 0 ? undefined : filters,
    },
  };
}

export function closedError(): Error {
  return new Error("cannot tell who is at the other end of the socket: it is closed");
}
