import { describe, expect, it } from "vitest";
import { redactText, redactUrl } from "./redact.js";

describe("redacting credentials", () => {
  it.each([
    ["http://user:hunter2@host:8080/v1", "http://user:***@host:8080/v1"],
    ["https://sk-secret@proxy.example/v1", "https://***@proxy.example/v1"],
    ["https://g.example/v1beta?key=AIza123&alt=sse", "https://g.example/v1beta?key=***&alt=sse"],
    [
      "https://h.example/x?access_token=t0k&api-key=k3y&q=1",
      "https://h.example/x?access_token=***&api-key=***&q=1",
    ],
    ["http://localhost:11434", "http://localhost:11434/"],
  ])("%s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it("hides every URL's credentials inside a message, and a userinfo it cannot parse", () => {
    expect(redactText("request to http://a:b@h/x failed: connect ECONNREFUSED; see https://t@k/y")).toBe(
      "request to http://a:***@h/x failed: connect ECONNREFUSED; see https://***@k/y",
    );
    expect(redactUrl("http://u:p@[bad")).toBe("http://u:***@[bad");
  });
});
