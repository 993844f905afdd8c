import type { Qid, Stat } from "./types.js";

/** The qid whose every field means "don't touch" in a Twstat. */
export const DONT_TOUCH_QID: Readonly<Qid> = Object.freeze({
  type: 0xff,
  version: 0xffffffff,
  path: 0xffffffffffffffffn,
});

/** A stat whose every field means "don't touch"; spread it and set the fields a Twstat should change. */
export function dontTouchStat(): Stat {
  return {
    type: 0xffff,
    dev: 0xffffffff,
    qid: { ...DONT_TOUCH_QID },
    mode: 0xffffffff,
    atime: 0xffffffff,
    mtime: 0xffffffff,
    length: 0xffffffffffffffffn,
    name: "",
    uid: "",
    gid: "",
    muid: "",
  };
}

export function isDontTouchQid(q: Qid): boolean {
  return q.type === 0xff && q.version === 0xffffffff && q.path === 0xffffffffffffffffn;
}

/** True when a Twstat asks for no change at all: the "sync" request of stat(5). */
export function isSyncStat(s: Stat): boolean {
  return (
    s.type === 0xffff &&
    s.dev === 0xffffffff &&
    isDontTouchQid(s.qid) &&
    s.mode === 0xffffffff &&
    s.atime === 0xffffffff &&
    s.mtime === 0xffffffff &&
    s.length === 0xffffffffffffffffn &&
    s.name === "" &&
    s.uid === "" &&
    s.gid === "" &&
    s.muid === ""
  );
}
