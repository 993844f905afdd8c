import { dirname } from "node:path";

/** Where the running Node lives, so tools written for it can run under the sandbox. */
export const NODE_PREFIX = dirname(dirname(process.execPath));
