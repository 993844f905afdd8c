import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { WebAccess } from "./auth/access.js";
import { guard } from "./auth/guard.js";
import type { DaemonLink } from "./daemon-link.js";
import { securityHeaders } from "./headers.js";
import { Streams } from "./live/streams.js";
import { actionRoutes } from "./routes/action-routes.js";
import { eventRoute } from "./routes/event-route.js";
import { pageRoutes } from "./routes/page-routes.js";
import { staticRoutes } from "./static-files.js";

export interface WebOptions {
  link: DaemonLink;
  /** Where to listen: loopback unless told otherwise. */
  host: string;
  /** 0: any free port. */
  port: number;
  /** The directory new sessions are made in unless a form names another. */
  defaultCwd: string;
  /** Where the page's built script and style are. */
  staticDir: string;
  /** The access token; a random one by default. */
  token?: string;
}

export interface WebServer {
  /** The address to open, with the token. */
  url: string;
  /** The address without the token. */
  origin: string;
  port: number;
  /** The live streams open (or kept for a browser to come back to). */
  streams: Streams;
  close(): Promise<void>;
}

/** Starts `ollie web`'s HTTP server: a client of olliesrv through `link`, keeping no state of its own. */
export async function startWeb(options: WebOptions): Promise<WebServer> {
  let app: Hono | undefined;
  const server = createAdaptorServer({
    fetch: (request) => (app ? app.fetch(request) : new Response(null, { status: 503 })),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const access = new WebAccess(port, options.token);
  const streams = new Streams(options.link, access.formToken);
  const web = { link: options.link, access, streams, defaultCwd: options.defaultCwd };
  const hono = new Hono();
  hono.use(securityHeaders());
  hono.use(guard(access, { host: options.host, port }));
  hono.get("/events", (c) => eventRoute(c, web));
  staticRoutes(hono, options.staticDir);
  pageRoutes(hono, web);
  actionRoutes(hono, web);
  app = hono;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const shownHost = host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
  const origin = `http://${shownHost}:${port}`;
  return {
    url: `${origin}/?token=${access.token}`,
    origin,
    port,
    streams,
    close: async () => {
      streams.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Streams are long-lived requests: the server waits for none of them.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}
