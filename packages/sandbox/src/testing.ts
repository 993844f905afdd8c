// @ollie/sandbox/testing: what tests of process trees check — whether a process is still there, and which
// processes carry a tree's mark.
// Linux only (it reads /proc).

export { processesMarked, processesWhere } from "./process/process-tree.js";
export { parentOf, processGone, processState } from "./testing/process-state.js";
