// The README's example: a notes service in one screen. Run: node --import tsx examples/notes.ts [ADDRESS]
import { NinepServer } from "@ollie/ninep";
import { AppendBuffer, buildTree, ctl, dir, each, file, log, text, WatchedValue, wait } from "@ollie/virtfs";

const notes = new Map<string, string>();
const events = new AppendBuffer(); // every change, for `tail -f`
const count = new WatchedValue(0); // a read of `countwait` blocks until it changes

function save(name: string, body: string) {
  notes.set(name, body);
  events.append(`saved ${name}\n`);
  count.set(notes.size);
}

function remove(name: string) {
  notes.delete(name);
  events.append(`removed ${name}\n`);
  count.set(notes.size);
}

const noteFile = (name: string) =>
  file(
    name,
    text(() => `${notes.get(name) ?? ""}\n`, { write: (body) => save(name, body.trim()) }),
  );

const tree = buildTree(
  dir("/", [
    file("ctl", ctl({ save: ([name = ""], c) => save(name, c.rest.slice(name.length).trim()) })),
    // create and remove let clients make and delete notes; without them the directory refuses both.
    each("notes", () => notes.keys(), noteFile, {
      create: (name) => {
        save(name, "");
        return name;
      },
      remove,
    }),
    file("countwait", wait(count)),
    file("events", log(events)),
  ]),
);

const address = process.argv[2] ?? "unix!/tmp/notes.sock";
await new NinepServer(tree).listen(address);
console.log(`serving notes on ${address}`);
