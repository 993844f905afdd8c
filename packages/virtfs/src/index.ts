// The public face of @ollie/virtfs: every name exported here is part of the API.

export type { AbortSource } from "./patterns/abort-source.js";
export { AppendBuffer, type AppendBufferOptions } from "./patterns/append-buffer.js";
export { type CloneState, clone } from "./patterns/clone.js";
export { type CommandContext, type CommandHandler, type CtlOptions, ctl } from "./patterns/ctl.js";
export { Fifo, type FifoOptions, fifo } from "./patterns/fifo.js";
export { type LogOptions, log } from "./patterns/log.js";
export { type TextOptions, text } from "./patterns/text.js";
export { type WaitOptions, wait } from "./patterns/wait.js";
export { Waiters } from "./patterns/waiters.js";
export { type Watchable, WatchedValue } from "./patterns/watched-value.js";
export type {
  FileContext,
  FileHandlers,
  OpenContext,
  ReadContext,
  StatContext,
  WriteContext,
} from "./spec/context.js";
export {
  type AliasSpec,
  alias,
  type ChangeContext,
  type DirSpec,
  dir,
  type EachOptions,
  type EachSpec,
  each,
  type FileSpec,
  file,
  type NodeSpec,
  type Perm,
  type PermSpec,
} from "./spec/node-spec.js";
export { buildTree } from "./tree/build-tree.js";
export type { PermissionDenial, TreeOptions } from "./tree/tree-options.js";
export type { VirtualTree } from "./tree/virtual-tree.js";
