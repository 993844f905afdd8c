import type { IncomingHttpHeaders } from "node:http";
import type { RecordedRequest } from "./mock-provider.js";
import type { MockReply, Rendered } from "./mock-reply.js";
import type { SignatureRegistry } from "./signature-registry.js";

/** One HTTP request that reached a provider mock mounted under its prefix (`/copilot`, `/kiro`). */
export interface MockExchange {
  method: string;
  /** The path below the mock's prefix: `/chat/completions` for `/copilot/chat/completions`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body as text ("" when there is none). */
  text: string;
  /** The body parsed: JSON, or the fields of an `application/x-www-form-urlencoded` body; else undefined. */
  body: unknown;
}

/** What the mock server lends a provider mock to answer with. */
export interface MockResponder {
  /** Records the request (it shows in `MockLlmServer.requests` under this mock's provider). */
  record(model: string): RecordedRequest;
  /** The next scripted reply for a chat request, or undefined when the script is empty. */
  nextReply(request: RecordedRequest): MockReply | undefined;
  /**
   * Writes a rendered response, frame by frame, with the reply's delays, cuts and splits; a client that
   * goes away before the end counts as a disconnect.
   */
  send(rendered: Rendered, reply?: MockReply): Promise<void>;
  readonly signatures: SignatureRegistry;
  /** The models the server was started with (ids and context windows). */
  readonly models: ReadonlyArray<{ id: string; contextLength?: number }>;
  /** Whether requests are checked against the provider's rules (MockServerOptions.checkRequests). */
  readonly checkRequests: boolean;
}

/** A provider whose mock lives under a path prefix of the mock server, with state of its own. */
export interface ProviderMock {
  /** Answers the request and resolves true, or resolves false when it has no route for it. */
  handle(exchange: MockExchange, responder: MockResponder): Promise<boolean>;
}
