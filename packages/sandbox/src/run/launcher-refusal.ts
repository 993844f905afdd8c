/** The launcher's own exit statuses: 125 policy or launcher failure, 126 cannot execute, 127 not found. */
const LAUNCHER_EXITS = new Set([125, 126, 127]);

/**
 * The launcher's refusal, as it said it (its last `ollie-sandbox: ` line, without the prefix), when the exit
 * status is the launcher's own; undefined when the command itself ran.
 */
export function launcherRefusal(exitCode: number | null | undefined, stderr: string): string | undefined {
  if (exitCode === null || exitCode === undefined || !LAUNCHER_EXITS.has(exitCode)) return undefined;
  const lastLine = stderr.trimEnd().split("\n").pop() ?? "";
  return lastLine.startsWith("ollie-sandbox: ") ? lastLine.slice("ollie-sandbox: ".length) : undefined;
}
