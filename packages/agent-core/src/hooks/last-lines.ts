/** The last lines of what a command said on stderr, on one line (for an error message). */
export const lastLines = (stderr: string, count = 3): string =>
  stderr.trim().split("\n").slice(-count).join(" / ");
