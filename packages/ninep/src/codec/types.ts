import type { LinuxRMessage, LinuxTMessage } from "./linux/messages.js";

import type { Qid } from "./qid.js";

export type { Qid } from "./qid.js";

/** A directory entry as 9P carries it in Rstat, Twstat and directory reads. */
export interface Stat {
  type: number;
  dev: number;
  qid: Qid;
  /** Permission bits plus DM flags. */
  mode: number;
  /** Seconds since the epoch. */
  atime: number;
  mtime: number;
  length: bigint;
  name: string;
  uid: string;
  gid: string;
  muid: string;
}

export interface Tversion {
  type: "Tversion";
  tag: number;
  msize: number;
  version: string;
}
export interface Rversion {
  type: "Rversion";
  tag: number;
  msize: number;
  version: string;
}
export interface Tauth {
  type: "Tauth";
  tag: number;
  afid: number;
  uname: string;
  aname: string;
  /** 9P2000.L only: the user's numeric id (NONUNAME: none, use `uname`); absent in 9P2000. */
  nUname?: number;
}
export interface Rauth {
  type: "Rauth";
  tag: number;
  aqid: Qid;
}
export interface Tattach {
  type: "Tattach";
  tag: number;
  fid: number;
  afid: number;
  uname: string;
  aname: string;
  /** 9P2000.L only: the user's numeric id (NONUNAME: none, use `uname`); absent in 9P2000. */
  nUname?: number;
}
export interface Rattach {
  type: "Rattach";
  tag: number;
  qid: Qid;
}
export interface Rerror {
  type: "Rerror";
  tag: number;
  ename: string;
}
export interface Tflush {
  type: "Tflush";
  tag: number;
  oldtag: number;
}
export interface Rflush {
  type: "Rflush";
  tag: number;
}
export interface Twalk {
  type: "Twalk";
  tag: number;
  fid: number;
  newfid: number;
  wnames: string[];
}
export interface Rwalk {
  type: "Rwalk";
  tag: number;
  wqids: Qid[];
}
export interface Topen {
  type: "Topen";
  tag: number;
  fid: number;
  mode: number;
}
export interface Ropen {
  type: "Ropen";
  tag: number;
  qid: Qid;
  iounit: number;
}
export interface Tcreate {
  type: "Tcreate";
  tag: number;
  fid: number;
  name: string;
  perm: number;
  mode: number;
}
export interface Rcreate {
  type: "Rcreate";
  tag: number;
  qid: Qid;
  iounit: number;
}
export interface Tread {
  type: "Tread";
  tag: number;
  fid: number;
  offset: bigint;
  count: number;
}
export interface Rread {
  type: "Rread";
  tag: number;
  data: Uint8Array;
}
export interface Twrite {
  type: "Twrite";
  tag: number;
  fid: number;
  offset: bigint;
  data: Uint8Array;
}
export interface Rwrite {
  type: "Rwrite";
  tag: number;
  count: number;
}
export interface Tclunk {
  type: "Tclunk";
  tag: number;
  fid: number;
}
export interface Rclunk {
  type: "Rclunk";
  tag: number;
}
export interface Tremove {
  type: "Tremove";
  tag: number;
  fid: number;
}
export interface Rremove {
  type: "Rremove";
  tag: number;
}
export interface Tstat {
  type: "Tstat";
  tag: number;
  fid: number;
}
export interface Rstat {
  type: "Rstat";
  tag: number;
  stat: Stat;
}
export interface Twstat {
  type: "Twstat";
  tag: number;
  fid: number;
  stat: Stat;
}
export interface Rwstat {
  type: "Rwstat";
  tag: number;
}

/** Every request of 9P2000. */
export type PlainTMessage =
  | Tversion
  | Tauth
  | Tattach
  | Tflush
  | Twalk
  | Topen
  | Tcreate
  | Tread
  | Twrite
  | Tclunk
  | Tremove
  | Tstat
  | Twstat;

/** Every reply of 9P2000. */
export type PlainRMessage =
  | Rversion
  | Rauth
  | Rattach
  | Rerror
  | Rflush
  | Rwalk
  | Ropen
  | Rcreate
  | Rread
  | Rwrite
  | Rclunk
  | Rremove
  | Rstat
  | Rwstat;

/** Every request a client may send, in either dialect. */
export type TMessage = PlainTMessage | LinuxTMessage;
/** Every reply a server may send, in either dialect. */
export type RMessage = PlainRMessage | LinuxRMessage;

export type Message = TMessage | RMessage;
export type MessageType = Message["type"];

/** The reply type that answers a request type (Rerror aside). */
export type ReplyTo<T extends { type: TMessage["type"] }> = Extract<
  RMessage,
  { type: `R${T["type"] extends `T${infer S}` ? S : never}` }
>;
