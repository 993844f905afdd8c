import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Hono } from "hono";

/** The page's script and style, by the name a page asks for: the built file, and its type. */
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  "app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "app.css": { file: "app-style.css", type: "text/css; charset=utf-8" },
};

/**
 * `/static/app.js` and `/static/app.css`, from the directory the build put them in. They are read once; a
 * browser asks again each time (`no-cache`) and is answered 304 while they are the same.
 */
export function staticRoutes(app: Hono, directory: string): void {
  const cache = new Map<string, Promise<Buffer>>();
  // Browsers ask for an icon whatever the page says; there is none, and that is no error.
  app.get("/favicon.ico", (c) => c.body(null, 204));
  app.get("/static/:name", async (c) => {
    const name = c.req.param("name");
    const known = FILES[name];
    if (!known) return c.text("not found\n", 404);
    let file = cache.get(name);
    if (!file) {
      file = readFile(join(directory, known.file));
      cache.set(name, file);
    }
    const body = await file.catch(() => undefined);
    if (!body) return c.text(`${name} was not built\n`, 404);
    c.header("Content-Type", known.type);
    c.header("Cache-Control", "no-cache");
    return c.body(new Uint8Array(body));
  });
}
