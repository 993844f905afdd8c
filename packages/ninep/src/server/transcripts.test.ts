import { afterEach, describe, expect, it } from "vitest";
import { BlockingFs } from "../__fixtures__/blocking-fs.js";
import { eventually, type Harness, serve } from "../__fixtures__/harness.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { runTranscript } from "../testing/transcript.js";
import type { FileServer } from "./file-server.js";
import type { ServerOptions } from "./server.js";

const HELLO = `
Tversion tag NOTAG msize 8192 version '9P2000'
Rversion tag NOTAG msize 8192 version '9P2000'
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rattach tag 1 qid (0 0 d)
`;

/** Version, attach, and fid 1 open on the file whose reads block. */
const OPEN_BLOCK = `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [block]
Rwalk tag 1 wqid [(2 0)]
Topen tag 1 fid 1 mode 0
Ropen tag 1 qid (2 0) iounit 8168
`;

let harness: Harness<unknown> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function play<A>(fs: FileServer<A>, script: string, options: ServerOptions = { maxMsize: 8192 }) {
  harness = (await serve(fs, options)) as Harness<unknown>;
  await runTranscript(await harness.socket(), script);
}

describe("version negotiation (version(5))", () => {
  it("answers 9P2000 to later versions and other dialects, 9P2000.L to itself, and takes the smaller msize", () =>
    play(
      new BlockingFs(),
      `
Tversion tag NOTAG msize 65536 version '9P2025.u'
Rversion tag NOTAG msize 8192 version '9P2000'
Tversion tag NOTAG msize 4096 version '9P2000.L'
Rversion tag NOTAG msize 4096 version '9P2000.L'
Tversion tag NOTAG msize 4096 version '9P2000.L.Google.1'
Rversion tag NOTAG msize 4096 version '9P2000'
`,
    ));

  it("answers 'unknown' to a version it cannot speak, and serves nothing until a good one", () =>
    play(
      new BlockingFs(),
      `
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rerror tag 1 ename 'Tversion must come first'
Tversion tag NOTAG msize 8192 version 'XP2000'
Rversion tag NOTAG msize 8192 version 'unknown'
Tversion tag NOTAG msize 8192 version '9P1999'
Rversion tag NOTAG msize 8192 version 'unknown'
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rerror tag 1 ename 'Tversion must come first'
Tversion tag NOTAG msize 100 version '9P2000'
Rerror tag NOTAG ename 'msize 100 is too small (minimum 256)'
${HELLO}`,
    ));

  it("drops a connection whose first frame announces more than maxMessageBeforeVersion (8 KiB)", () =>
    // A Tversion header announcing 8,193 bytes: the connection ends on the size, before the body comes.
    play(new Ramfs(), "raw 01200000 64 ffff\nclosed\n", {}));

  it("takes up to maxMessageBeforeAttach (64 KiB) once the version is settled, up to msize once attached", () =>
    play(
      new Ramfs(),
      `
Tversion tag NOTAG msize 131072 version '9P2000'
Rversion tag NOTAG msize 131072 version '9P2000'
Tattach tag 1 fid 0 afid NOFID uname '${"u".repeat(9000)}' aname ''
Rerror tag 1 ename 'uname is longer than 256 bytes'
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rattach tag 1 qid *
Twalk tag 1 fid 0 newfid 1 wname [${Array.from({ length: 16 }, () => "n".repeat(4500)).join(" ")}]
Rerror tag 1 ename *
Tversion tag NOTAG msize 8192 version '9P2000'
Rversion tag NOTAG msize 8192 version '9P2000'
Tattach tag 1 fid 0 afid NOFID uname '${"u".repeat(9000)}' aname ''
closed
`,
      {},
    ));

  it("resets the session on a second Tversion: fids are gone", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [hello]
Rwalk tag 1 wqid [(1 0)]
Tversion tag NOTAG msize 8192 version '9P2000'
Rversion tag NOTAG msize 8192 version '9P2000'
Tstat tag 1 fid 1
Rerror tag 1 ename 'unknown fid'
Tstat tag 1 fid 0
Rerror tag 1 ename 'unknown fid'
`,
    ));
});

describe("intro(5) rules", () => {
  it("answers Tauth with 'not required' when no authentication is configured", () =>
    play(
      new BlockingFs(),
      `
Tversion tag NOTAG msize 8192 version '9P2000'
Rversion tag NOTAG msize 8192 version '9P2000'
Tauth tag 1 afid 5 uname glenda aname ''
Rerror tag 1 ename 'authentication not required'
Tattach tag 1 fid 0 afid 5 uname glenda aname ''
Rerror tag 1 ename 'unknown fid'
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rattach tag 1 qid (0 0 d)
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rerror tag 1 ename 'duplicate fid'
Tattach tag 1 fid NOFID afid NOFID uname glenda aname ''
Rerror tag 1 ename 'NOFID cannot name a fid'
Tstat tag 1 fid 0
Rstat tag 1 stat ('/' 'sys' 'sys' 'sys' q (0 0 d) m 020000000555 at 1 mt 2 l 0 t 0 d 0)
`,
    ));

  it("reads at offsets, clamps counts to msize and forgets clunked fids", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [hello]
Rwalk tag 1 wqid [(1 0)]
Tread tag 1 fid 1 offset 0 count 1
Rerror tag 1 ename 'file not open for reading'
Topen tag 1 fid 1 mode 0
Ropen tag 1 qid (1 0) iounit 8168
Tread tag 1 fid 1 offset 0 count 1
Rread tag 1 count 1 data 'h'
Tread tag 1 fid 1 offset 1 count 100
Rread tag 1 count 12 data 'ello, world\\n'
Tread tag 1 fid 1 offset 13 count 100
Rread tag 1 count 0 data ''
Tread tag 1 fid 1 offset 0 count 100000
Rread tag 1 count 13 data 'hello, world\\n'
Tread tag 1 fid 1 offset 0x8000000000000000 count 10
Rerror tag 1 ename 'bad offset'
Twrite tag 1 fid 1 offset 0 count 1 data 'x'
Rerror tag 1 ename 'file not open for writing'
Tclunk tag 1 fid 1
Rclunk tag 1
Tread tag 1 fid 1 offset 0 count 1
Rerror tag 1 ename 'unknown fid'
Tclunk tag 1 fid 1
Rerror tag 1 ename 'unknown fid'
`,
    ));

  it("walks: clone, newfid == fid, partial walks, '..', bad names, non-directories, open fids", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 2 wname []
Rwalk tag 1 wqid []
Twalk tag 1 fid 2 newfid 2 wname [dir]
Rwalk tag 1 wqid [(5 0 d)]
Twalk tag 1 fid 0 newfid 2 wname [hello]
Rerror tag 1 ename 'duplicate fid'
Twalk tag 1 fid 0 newfid 3 wname [dir a]
Rwalk tag 1 wqid [(5 0 d) (6 0)]
Twalk tag 1 fid 0 newfid 4 wname [dir nope]
Rwalk tag 1 wqid [(5 0 d)]
Tstat tag 1 fid 4
Rerror tag 1 ename 'unknown fid'
Twalk tag 1 fid 0 newfid 4 wname [nope]
Rerror tag 1 ename 'file not found'
Twalk tag 1 fid 3 newfid 4 wname [x]
Rerror tag 1 ename 'walk in non-directory'
Twalk tag 1 fid 2 newfid 4 wname [.. ..]
Rwalk tag 1 wqid [(0 0 d) (0 0 d)]
Twalk tag 1 fid 0 newfid 5 wname [.]
Rerror tag 1 ename 'bad file name \\'.\\''
Twalk tag 1 fid 0 newfid 5 wname ['a/b']
Rerror tag 1 ename 'bad file name \\'a/b\\''
Twalk tag 1 fid 0 newfid 5 wname ['']
Rerror tag 1 ename 'bad file name \\'\\''
Twalk tag 1 fid 0 newfid 5 wname [dir]
Rwalk tag 1 wqid [(5 0 d)]
Topen tag 1 fid 5 mode 0
Ropen tag 1 qid (5 0 d) iounit 8168
Twalk tag 1 fid 5 newfid 6 wname []
Rerror tag 1 ename 'cannot walk from an open fid'
Twalk tag 1 fid 99 newfid 6 wname []
Rerror tag 1 ename 'unknown fid'
`,
    ));

  it("rejects a walk of 17 names with an error and keeps serving", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [a a a a a a a a a a a a a a a a a]
Rerror tag 1 ename 'walk of 17 names exceeds the limit of 16'
Tstat tag 1 fid 0
Rstat tag 1 stat ('/' * * * q * m * at * mt * l * t * d *)
`,
    ));

  it("opens directories only for reading and checks open modes", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [dir]
Rwalk tag 1 wqid [(5 0 d)]
Topen tag 1 fid 1 mode 1
Rerror tag 1 ename 'is a directory'
Topen tag 1 fid 1 mode 2
Rerror tag 1 ename 'is a directory'
Topen tag 1 fid 1 mode 0x10
Rerror tag 1 ename 'is a directory'
Topen tag 1 fid 1 mode 0x40
Rerror tag 1 ename 'is a directory'
Topen tag 1 fid 1 mode 0x84
Rerror tag 1 ename 'bad open mode 0x84'
Topen tag 1 fid 1 mode 0
Ropen tag 1 qid (5 0 d) iounit 8168
Topen tag 1 fid 1 mode 0
Rerror tag 1 ename 'file already open'
Twrite tag 1 fid 1 offset 0 data 'x'
Rerror tag 1 ename 'file not open for writing'
`,
    ));

  it("reads directories in whole entries, only at 0 or where the last read ended", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [dir]
Rwalk tag 1 wqid [(5 0 d)]
Topen tag 1 fid 1 mode 0
Ropen tag 1 qid (5 0 d) iounit 8168
Tread tag 1 fid 1 offset 0 count 8168
Rread tag 1 count 118 data *
Tread tag 1 fid 1 offset 118 count 8168
Rread tag 1 count 0 data ''
Tread tag 1 fid 1 offset 116 count 8168
Rerror tag 1 ename 'bad offset in directory read'
Tread tag 1 fid 1 offset 0 count 10
Rerror tag 1 ename 'directory read count 10 is too small for the next entry'
Tread tag 1 fid 1 offset 0 count 100
Rread tag 1 count 59 data *
Tread tag 1 fid 1 offset 59 count 100
Rread tag 1 count 59 data *
Tread tag 1 fid 1 offset 118 count 100
Rread tag 1 count 0 data ''
`,
    ));

  it("refuses what a FileServer does not implement, and wstat changes the protocol forbids", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [hello]
Rwalk tag 1 wqid [(1 0)]
Tcreate tag 1 fid 0 name x perm 0644 mode 0
Rerror tag 1 ename 'create prohibited'
Tcreate tag 1 fid 1 name x perm 0644 mode 0
Rerror tag 1 ename 'create in non-directory'
Twstat tag 1 fid 1 stat ('new' '' '' '' q ~ m ~ at ~ mt ~ l ~ t ~ d ~)
Rerror tag 1 ename 'wstat prohibited'
Twstat tag 1 fid 1 stat ('' '' '' '' q ~ m ~ at ~ mt ~ l ~ t ~ d ~)
Rwstat tag 1
Twstat tag 1 fid 1 stat ('' '' '' '' q (1 0) m ~ at ~ mt ~ l ~ t ~ d ~)
Rerror tag 1 ename 'wstat cannot change qid'
Twstat tag 1 fid 1 stat ('' '' '' 'me' q ~ m ~ at ~ mt ~ l ~ t ~ d ~)
Rerror tag 1 ename 'wstat cannot change muid'
Twstat tag 1 fid 1 stat ('' '' '' '' q ~ m 020000000644 at ~ mt ~ l ~ t ~ d ~)
Rerror tag 1 ename 'wstat cannot change DMDIR bit'
Twstat tag 1 fid 1 stat ('' '' '' '' q ~ m ~ at ~ mt ~ l ~ t 1 d ~)
Rerror tag 1 ename 'wstat cannot change type'
Tremove tag 1 fid 1
Rerror tag 1 ename 'remove prohibited'
Tstat tag 1 fid 1
Rerror tag 1 ename 'unknown fid'
`,
    ));

  it("answers duplicate tags, NOTAG, reply messages and undecodable frames with errors", () =>
    play(
      new BlockingFs(),
      `${OPEN_BLOCK}
Tread tag 5 fid 1 offset 0 count 10
Tstat tag 5 fid 0
Rerror tag 5 ename 'duplicate tag'
Tstat tag NOTAG fid 0
Rerror tag NOTAG ename 'NOTAG is only for Tversion'
send Rflush tag 3
Rerror tag 3 ename 'unexpected message Rflush'
raw 07000000 63 0900
Rerror tag 9 ename 'unknown message type 99'
raw 0f000000 7c 0a00 01000000 ffffffff
Rerror tag 10 ename 'Tstat has 4 bytes left over'
Tflush tag 6 oldtag 5
Rerror tag 5 ename 'interrupted'
Rflush tag 6
`,
    ));

  it("drops a connection whose frame size is below a header", () =>
    play(new BlockingFs(), `${HELLO}\nraw 06000000 6c 0100\nclosed\n`));

  it("drops a connection whose frame size exceeds msize", () =>
    play(new BlockingFs(), `${HELLO}\nraw 01210000 76 0100\nclosed\n`));
});

describe("concurrency and flush (flush(5))", () => {
  it("lets a blocked write meet a later read, replies in completion order, and flushes a stuck write", () =>
    play(
      new BlockingFs(),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname [pipe]
Twalk tag 2 fid 0 newfid 2 wname [pipe]
Rwalk tag 1 wqid [(4 0)]
Rwalk tag 2 wqid [(4 0)]
Topen tag 1 fid 1 mode 1
Topen tag 2 fid 2 mode 0
Ropen tag 2 qid (4 0) iounit 8168
Ropen tag 1 qid (4 0) iounit 8168
Twrite tag 1 fid 1 offset 0 data 'hello'
Tread tag 2 fid 2 offset 0 count 100
Rread tag 2 count 5 data 'hello'
Rwrite tag 1 count 5
Twrite tag 1 fid 1 offset 0 data 'stuck'
Tflush tag 2 oldtag 1
Rerror tag 1 ename 'interrupted'

Rflush tag 2
`,
    ));

  it("answers every flush of a blocked read after the read, in order, and flushes of the finished at once", () =>
    play(
      new BlockingFs(),
      `${OPEN_BLOCK}
Tread tag 5 fid 1 offset 0 count 10
Tflush tag 6 oldtag 5
Tflush tag 7 oldtag 5
Rerror tag 5 ename 'interrupted'

Rflush tag 6

Rflush tag 7

Tflush tag 8 oldtag 5
Rflush tag 8
Tflush tag 8 oldtag 8
Rflush tag 8
Tread tag 5 fid 1 offset 0 count 10
Tflush tag 6 oldtag 5
Tflush tag 7 oldtag 6
Rerror tag 5 ename 'interrupted'

Rflush tag 6

Rflush tag 7
`,
    ));

  it("aborts a fid's blocked read when the fid is clunked, and releases the fid after the read ends", async () => {
    const fs = new BlockingFs();
    await play(
      fs,
      `${OPEN_BLOCK}
Tread tag 5 fid 1 offset 0 count 10
sleep 50
Tclunk tag 6 fid 1
Rclunk tag 6
Rerror tag 5 ename 'interrupted'
Tstat tag 1 fid 1
Rerror tag 1 ename 'unknown fid'
`,
    );
    expect(fs.aborted).toEqual(["fid clunked"]);
    expect(fs.clunked).toContain("/block");
  });

  it("aborts blocked reads on Tversion without ever answering them", async () => {
    const fs = new BlockingFs();
    await play(
      fs,
      `${OPEN_BLOCK}
Tread tag 5 fid 1 offset 0 count 10
Tread tag 6 fid 1 offset 0 count 10
sleep 50
Tversion tag NOTAG msize 8192 version '9P2000'
Rversion tag NOTAG msize 8192 version '9P2000'
Tstat tag 5 fid 1
Rerror tag 5 ename 'unknown fid'
`,
    );
    expect(fs.aborted).toEqual(["session reset by Tversion", "session reset by Tversion"]);
    await eventually(() => fs.clunked.filter((p) => p === "/block").length === 1);
  });
});

describe("ramfs", () => {
  it("creates, writes, bumps the qid version, reads back and removes on ORCLOSE", () =>
    play(
      new Ramfs({ owner: "glenda" }),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname []
Rwalk tag 1 wqid []
Tcreate tag 1 fid 1 name x perm 0666 mode 2
Rcreate tag 1 qid (1 0) iounit 8168
Twrite tag 1 fid 1 offset 0 data 'hello world'
Rwrite tag 1 count 11
Tclunk tag 1 fid 1
Rclunk tag 1
Twalk tag 1 fid 0 newfid 1 wname [x]
Rwalk tag 1 wqid [(1 1)]
Topen tag 1 fid 1 mode 0
Ropen tag 1 qid (1 1) iounit 8168
Tread tag 1 fid 1 offset 0 count 100
Rread tag 1 count 11 data 'hello world'
Tread tag 1 fid 1 offset 11 count 100
Rread tag 1 count 0 data ''
Tstat tag 1 fid 1
Rstat tag 1 stat ('x' 'glenda' 'glenda' 'glenda' q (1 1) m 0666 at * mt * l 11 t 0 d 0)
Twalk tag 1 fid 0 newfid 2 wname []
Rwalk tag 1 wqid []
Tcreate tag 1 fid 2 name x perm 0666 mode 2
Rerror tag 1 ename '\\'x\\' already exists'
Tcreate tag 1 fid 2 name tmp perm 0600 mode 0x42
Rcreate tag 1 qid (2 0) iounit 8168
Tclunk tag 1 fid 2
Rclunk tag 1
Twalk tag 1 fid 0 newfid 2 wname [tmp]
Rerror tag 1 ename '\\'tmp\\' file not found'
`,
    ));

  it("checks permissions against the attaching uname, Unix style: a 0466 file is not writable by its owner", () =>
    play(
      new Ramfs({ owner: "glenda" }),
      `${HELLO}
Tattach tag 1 fid 9 afid NOFID uname other aname ''
Rattach tag 1 qid (0 0 d)
Twalk tag 1 fid 0 newfid 1 wname []
Rwalk tag 1 wqid []
Tcreate tag 1 fid 1 name secret perm 0600 mode 1
Rcreate tag 1 qid (1 0) iounit 8168
Twalk tag 1 fid 0 newfid 2 wname []
Rwalk tag 1 wqid []
Tcreate tag 1 fid 2 name inbox perm 0466 mode 0
Rcreate tag 1 qid (2 0) iounit 8168
Twalk tag 1 fid 9 newfid 10 wname [secret]
Rwalk tag 1 wqid [(1 0)]
Topen tag 1 fid 10 mode 0
Rerror tag 1 ename 'permission denied'
Twalk tag 1 fid 0 newfid 3 wname [inbox]
Rwalk tag 1 wqid [(2 0)]
Topen tag 1 fid 3 mode 1
Rerror tag 1 ename 'permission denied'
Twalk tag 1 fid 9 newfid 11 wname [inbox]
Rwalk tag 1 wqid [(2 0)]
Topen tag 1 fid 11 mode 1
Ropen tag 1 qid (2 0) iounit 8168
Twstat tag 1 fid 3 stat ('' '' '' '' q ~ m 0644 at ~ mt ~ l ~ t ~ d ~)
Rwstat tag 1
Twalk tag 1 fid 9 newfid 12 wname [inbox]
Rwalk tag 1 wqid [(2 0)]
Twstat tag 1 fid 12 stat ('' '' '' '' q ~ m 0666 at ~ mt ~ l ~ t ~ d ~)
Rerror tag 1 ename 'only the owner may change the mode'
`,
    ));

  it("renames, truncates and refuses to remove a non-empty directory", () =>
    play(
      new Ramfs({ owner: "glenda" }),
      `${HELLO}
Twalk tag 1 fid 0 newfid 1 wname []
Rwalk tag 1 wqid []
Tcreate tag 1 fid 1 name d perm 020000000755 mode 0
Rcreate tag 1 qid (1 0 d) iounit 8168
Twalk tag 1 fid 0 newfid 2 wname [d]
Rwalk tag 1 wqid [(1 0 d)]
Tcreate tag 1 fid 2 name f perm 0644 mode 1
Rcreate tag 1 qid (2 0) iounit 8168
Twrite tag 1 fid 2 offset 0 data 'abcdef'
Rwrite tag 1 count 6
Twstat tag 1 fid 2 stat ('g' '' '' '' q ~ m ~ at ~ mt ~ l 3 t ~ d ~)
Rwstat tag 1
Tstat tag 1 fid 2
Rstat tag 1 stat ('g' 'glenda' 'glenda' 'glenda' q (2 2) m 0644 at * mt * l 3 t 0 d 0)
Twalk tag 1 fid 0 newfid 3 wname [d]
Rwalk tag 1 wqid [(1 1 d)]
Tremove tag 1 fid 3
Rerror tag 1 ename 'directory not empty'
Twalk tag 1 fid 0 newfid 3 wname [d g]
Rwalk tag 1 wqid [(1 1 d) (2 2)]
Tremove tag 1 fid 3
Rremove tag 1
Twalk tag 1 fid 0 newfid 3 wname [d]
Rwalk tag 1 wqid [(1 2 d)]
Tremove tag 1 fid 3
Rremove tag 1
`,
    ));
});
