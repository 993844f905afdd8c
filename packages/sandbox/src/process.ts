// @ollie/sandbox/process: a shell command in a process tree of its own, without the sandbox — for commands
// that are the user's own (hooks, prompt commands): nothing it starts outlives it, however it detaches.
// Loads nothing of the sandbox itself.

export { runShellInGroup, type ShellRun, type ShellRunOptions } from "./process/shell-in-group.js";
