/**
 * Marks handlers whose reads take what they return, as a pipe's do, so that `file` keeps them to the
 * owner when no mode is given. A symbol-keyed property, so that handlers spread into new ones (to add a
 * `close`, say) keep it.
 */
const CONSUMING_READS = Symbol("virtfs.consumingReads");

export function consumingReads<H extends object>(handlers: H): H {
  return Object.assign(handlers, { [CONSUMING_READS]: true });
}

export function readsConsume(handlers: object): boolean {
  return (handlers as { [CONSUMING_READS]?: boolean })[CONSUMING_READS] === true;
}
