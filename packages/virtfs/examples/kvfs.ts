// kvfs: a key-value store served over 9P, built with @ollie/virtfs. See README.md in this folder.
import { parseArgs } from "node:util";
import { formatAddress, NinepServer, parseAddress, serviceAddress } from "@ollie/ninep";
import {
  AppendBuffer,
  buildTree,
  clone,
  ctl,
  dir,
  each,
  file,
  log,
  text,
  WatchedValue,
  wait,
} from "@ollie/virtfs";

/** The store: keys and values, a log of changes, and a watched count. */
export class KvStore {
  readonly values = new Map<string, string>();
  readonly events = new AppendBuffer({ retain: 64 * 1024 });
  readonly count = new WatchedValue(0);

  set(key: string, value: string): void {
    if (!/^[\w.-]+$/.test(key)) throw new Error(`bad key '${key}': use letters, digits, '.', '_' or '-'`);
    this.values.set(key, value);
    this.changed(`set ${key}`);
  }

  delete(key: string): void {
    if (!this.values.delete(key)) throw new Error(`no key '${key}'`);
    this.changed(`del ${key}`);
  }

  private changed(event: string): void {
    this.events.append(`${event}\n`);
    this.count.set(this.values.size);
  }
}

/** The file tree of a store. */
export function kvTree(store: KvStore) {
  return dir("/", [
    file(
      "ctl",
      ctl({
        set: ([key], c) => store.set(key ?? "", c.rest.slice((key ?? "").length).trim()),
        del: ([key]) => store.delete(key ?? ""),
        clear: () => {
          for (const key of [...store.values.keys()]) store.delete(key);
        },
      }),
    ),
    file(
      "new",
      clone((spec) => {
        const [key = "", ...value] = spec.split(" ");
        store.set(key, value.join(" "));
        return key;
      }),
    ),
    each(
      "keys",
      () => store.values.keys(),
      (key) =>
        file(
          key,
          text(() => `${store.values.get(key) ?? ""}\n`, { write: (value) => store.set(key, value.trim()) }),
          0o666,
        ),
      {
        lookup: (key) => (store.values.has(key) ? key : undefined),
        create: (key) => {
          store.set(key, "");
          return key;
        },
        remove: (key) => store.delete(key),
        mode: 0o777,
      },
    ),
    file(
      "count",
      text(() => `${store.values.size}\n`),
    ),
    file("countwait", wait(store.count)),
    file("events", log(store.events)),
  ]);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { a: { type: "string" } } });
  const address = values.a ? parseAddress(values.a) : serviceAddress("kvfs");
  const server = new NinepServer(buildTree(kvTree(new KvStore())));
  const listener = await server.listen(address);
  process.stderr.write(`kvfs: serving on ${formatAddress(listener.boundAddress)}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
