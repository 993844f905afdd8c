import { afterEach, describe, it } from "vitest";
import { BlockingFs } from "../../__fixtures__/blocking-fs.js";
import { type Harness, serve } from "../../__fixtures__/harness.js";
import { Ramfs } from "../../ramfs/ramfs.js";
import { runTranscript } from "../../testing/transcript.js";
import type { FileServer } from "../file-server.js";

let harness: Harness<unknown> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function play<A>(fs: FileServer<A>, script: string): Promise<void> {
  harness = (await serve(fs, { maxMsize: 8192 })) as Harness<unknown>;
  await runTranscript(await harness.socket(), script);
}

/** What the kernel sends to mount (version, attach with n_uname, getattr of the root), after diod's Tauth. */
const MOUNT = `
Tversion tag NOTAG msize 131096 version '9P2000.L'
Rversion tag NOTAG msize 8192 version '9P2000.L'
Tauth tag 1 afid 0 uname '' aname '' n_uname 1000
Rlerror tag 1 ecode 2
Tattach tag 1 fid 0 afid NOFID uname '' aname '' n_uname 1000
Rattach tag 1 qid (0 0 d)
Tgetattr tag 1 fid 0 requestMask 0x17ff
Rgetattr tag 1 valid 0x17ff qid (0 0 d) mode 040777 uid 1000 gid 1000 nlink 2 rdev 0 size 0 blksize 4096 blocks 0 atimeSec * atimeNsec 0 mtimeSec * mtimeNsec 0 ctimeSec * ctimeNsec 0 btimeSec 0 btimeNsec 0 gen 0 dataVersion 0
`;

/** A file a.txt holding 'hello' and a directory d, made as v9fs makes them. */
const FILES = `${MOUNT}
Twalk tag 1 fid 0 newfid 1 wname []
Rwalk tag 1 wqid []
Tlcreate tag 1 fid 1 name 'a.txt' flags 0102 mode 0100644 gid 1000
Rlcreate tag 1 qid (1 0) iounit 8168
Twrite tag 1 fid 1 offset 0 data 'hello'
Rwrite tag 1 count 5
Tclunk tag 1 fid 1
Rclunk tag 1
Tmkdir tag 1 dfid 0 name 'd' mode 040755 gid 1000
Rmkdir tag 1 qid (2 0 d)
`;

const ramfs = () => new Ramfs({ owner: "1000" });

describe("9P2000.L: the kernel's and diod's sequences", () => {
  it("mounts: version, Tauth refused with ENOENT (no authentication), attach by number, getattr of the root", () =>
    play(ramfs(), MOUNT));

  it("lists a directory with Treaddir (whole entries, cookies, an empty reply at the end) and walks from it", () =>
    play(
      ramfs(),
      `${FILES}
Twalk tag 1 fid 0 newfid 3 wname []
Rwalk tag 1 wqid []
Tlopen tag 1 fid 3 flags 0304000
Rlopen tag 1 qid * iounit 8168
Treaddir tag 1 fid 3 offset 0 count 8168
Rreaddir tag 1 entries [((1 1) 1 8 'a.txt') ((2 0 d) 2 4 'd')]
Treaddir tag 1 fid 3 offset 2 count 8168
Rreaddir tag 1 entries []
Treaddir tag 1 fid 3 offset 0 count 30
Rreaddir tag 1 entries [((1 1) 1 8 'a.txt')]
Treaddir tag 1 fid 3 offset 1 count 30
Rreaddir tag 1 entries [((2 0 d) 2 4 'd')]
Treaddir tag 1 fid 3 offset 1 count 10
Rlerror tag 1 ecode 22
Twalk tag 1 fid 3 newfid 5 wname ['a.txt']
Rwalk tag 1 wqid [(1 1)]
Twalk tag 1 fid 3 newfid 3 wname ['a.txt']
Rlerror tag 1 ecode 22
Tclunk tag 1 fid 3
Rclunk tag 1
Twalk tag 1 fid 0 newfid 4 wname [d]
Rwalk tag 1 wqid [(2 0 d)]
Treaddir tag 1 fid 4 offset 0 count 100
Rlerror tag 1 ecode 9
`,
    ));

  it("reads a file's attributes, as much of them as asked, and its data after Tlopen", () =>
    play(
      ramfs(),
      `${FILES}
Twalk tag 1 fid 0 newfid 4 wname ['a.txt']
Rwalk tag 1 wqid [(1 1)]
Tgetattr tag 1 fid 4 requestMask 0x3fff
Rgetattr tag 1 valid 0x37ff qid (1 1) mode 0100644 uid 1000 gid 1000 nlink 1 rdev 0 size 5 blksize 4096 blocks 1 atimeSec * atimeNsec 0 mtimeSec * mtimeNsec 0 ctimeSec * ctimeNsec 0 btimeSec 0 btimeNsec 0 gen 0 dataVersion 1
Tgetattr tag 1 fid 4 requestMask 0x201
Rgetattr tag 1 valid 0x201 qid (1 1) mode 0100644 uid 1000 gid 1000 nlink 1 rdev 0 size 5 blksize 4096 blocks 1 atimeSec * atimeNsec 0 mtimeSec * mtimeNsec 0 ctimeSec * ctimeNsec 0 btimeSec 0 btimeNsec 0 gen 0 dataVersion 1
Tlopen tag 1 fid 4 flags 0100000
Rlopen tag 1 qid (1 1) iounit 8168
Tread tag 1 fid 4 offset 0 count 8168
Rread tag 1 count 5 data 'hello'
Tread tag 1 fid 4 offset 5 count 8168
Rread tag 1 count 0 data ''
Twalk tag 1 fid 0 newfid 5 wname [nope]
Rlerror tag 1 ecode 2
Twalk tag 1 fid 0 newfid 5 wname [d]
Rwalk tag 1 wqid [(2 0 d)]
Tlopen tag 1 fid 5 flags 01
Rlerror tag 1 ecode 21
Tlopen tag 1 fid 5 flags 03
Rlerror tag 1 ecode 22
`,
    ));

  it("truncates and touches with Tsetattr, refuses owners by number, and keeps what cannot be set", () =>
    play(
      ramfs(),
      `${FILES}
Twalk tag 1 fid 0 newfid 4 wname ['a.txt']
Rwalk tag 1 wqid [(1 1)]
Tsetattr tag 1 fid 4 valid 0x68 mode 0 uid 0 gid 0 size 2 atimeSec 0 atimeNsec 0 mtimeSec 0 mtimeNsec 0
Rsetattr tag 1
Tsetattr tag 1 fid 4 valid 0x121 mode 0600 uid 0 gid 0 size 0 atimeSec 0 atimeNsec 0 mtimeSec 1000000 mtimeNsec 0
Rsetattr tag 1
Tgetattr tag 1 fid 4 requestMask 0x241
Rgetattr tag 1 valid 0x241 qid * mode 0100600 uid 1000 gid 1000 nlink 1 rdev 0 size 2 blksize 4096 blocks 1 atimeSec * atimeNsec 0 mtimeSec 1000000 mtimeNsec 0 ctimeSec 1000000 ctimeNsec 0 btimeSec 0 btimeNsec 0 gen 0 dataVersion *
Tsetattr tag 1 fid 4 valid 0x2 mode 0 uid 0 gid 0 size 0 atimeSec 0 atimeNsec 0 mtimeSec 0 mtimeNsec 0
Rlerror tag 1 ecode 1
`,
    ));

  it("removes, renames within a directory, and refuses a move across directories with EXDEV", () =>
    play(
      ramfs(),
      `${FILES}
Tunlinkat tag 1 dirfid 0 name 'd' flags 0
Rlerror tag 1 ecode 21
Tunlinkat tag 1 dirfid 0 name 'a.txt' flags 0x200
Rlerror tag 1 ecode 20
Tunlinkat tag 1 dirfid 0 name 'nope' flags 0
Rlerror tag 1 ecode 2
Trenameat tag 1 olddirfid 0 oldname 'a.txt' newdirfid 0 newname 'b.txt'
Rrenameat tag 1
Twalk tag 1 fid 0 newfid 4 wname ['b.txt']
Rwalk tag 1 wqid [(1 *)]
Twalk tag 1 fid 0 newfid 5 wname [d]
Rwalk tag 1 wqid [(2 0 d)]
Trenameat tag 1 olddirfid 0 oldname 'b.txt' newdirfid 5 newname 'c.txt'
Rlerror tag 1 ecode 18
Trename tag 1 fid 4 dfid 0 name 'e.txt'
Rrename tag 1
Trename tag 1 fid 4 dfid 5 name 'f.txt'
Rlerror tag 1 ecode 18
Tunlinkat tag 1 dirfid 0 name 'd' flags 0x200
Runlinkat tag 1
Twalk tag 1 fid 0 newfid 6 wname [d]
Rlerror tag 1 ecode 2
`,
    ));

  it("answers statfs, fsync, locks and extended attributes as for a tree that has none of them", () =>
    play(
      ramfs(),
      `${FILES}
Twalk tag 1 fid 0 newfid 4 wname ['a.txt']
Rwalk tag 1 wqid [(1 1)]
Tstatfs tag 1 fid 0
Rstatfs tag 1 fsType 16914839 bsize 4096 blocks 0 bfree 0 bavail 0 files 0 ffree 0 fsid 0 namelen 255
Tfsync tag 1 fid 4 datasync 0
Rfsync tag 1
Tlock tag 1 fid 4 lockType 1 flags 0 start 0 length 0 procId 42 clientId 'host'
Rlock tag 1 status 0
Tgetlock tag 1 fid 4 lockType 1 start 0 length 0 procId 42 clientId 'host'
Rgetlock tag 1 lockType 2 start 0 length 0 procId 42 clientId 'host'
Txattrwalk tag 1 fid 4 newfid 7 name 'security.capability'
Rlerror tag 1 ecode 61
Txattrwalk tag 1 fid 4 newfid 7 name ''
Rxattrwalk tag 1 size 0
Tread tag 1 fid 7 offset 0 count 100
Rread tag 1 count 0 data ''
Tclunk tag 1 fid 7
Rclunk tag 1
Txattrcreate tag 1 fid 4 name 'user.x' attrSize 1 flags 0
Rlerror tag 1 ecode 95
Tsymlink tag 1 fid 0 name 'l' symtgt 'a.txt' gid 0
Rlerror tag 1 ecode 1
Tmknod tag 1 dfid 0 name 'n' mode 020644 major 1 minor 3 gid 0
Rlerror tag 1 ecode 1
Tlink tag 1 dfid 0 fid 4 name 'hard'
Rlerror tag 1 ecode 1
Treadlink tag 1 fid 4
Rlerror tag 1 ecode 22
Tfsync tag 1 fid 99 datasync 0
Rlerror tag 1 ecode 9
`,
    ));

  it("answers a flushed blocking read with EINTR, then Rflush, as v9fs waits for on ^C", () =>
    play(
      new BlockingFs(),
      `
Tversion tag NOTAG msize 8192 version '9P2000.L'
Rversion tag NOTAG msize 8192 version '9P2000.L'
Tattach tag 1 fid 0 afid NOFID uname glenda aname '' n_uname 4294967295
Rattach tag 1 qid (0 0 d)
Twalk tag 1 fid 0 newfid 1 wname [block]
Rwalk tag 1 wqid [(2 0)]
Tlopen tag 1 fid 1 flags 0
Rlopen tag 1 qid (2 0) iounit 8168
Tread tag 5 fid 1 offset 0 count 10
Tflush tag 6 oldtag 5
Rlerror tag 5 ecode 4

Rflush tag 6
`,
    ));

  it("keeps 9P2000.L's messages out of a 9P2000 session", () =>
    play(
      ramfs(),
      `
Tversion tag NOTAG msize 8192 version '9P2000'
Rversion tag NOTAG msize 8192 version '9P2000'
Tattach tag 1 fid 0 afid NOFID uname glenda aname ''
Rattach tag 1 qid (0 0 d)
Tlopen tag 1 fid 0 flags 0
Rerror tag 1 ename 'unknown message type 12'
`,
    ));
});
