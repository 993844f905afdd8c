// @ollie/sandbox/testing: what tests of sandboxed process trees check — whether a process is still there.
// Linux only (it reads /proc).

export { parentOf, processGone, processState } from "./testing/process-state.js";
