import { createLogger } from "@ollie/log";
import { describe, expect, it } from "vitest";
import { DaemonSecrets } from "./secrets.js";

describe("DaemonSecrets", () => {
  it("keeps a secret from the log and from what telemetry exports alike, a longer one whole", () => {
    const lines: string[] = [];
    const log = createLogger({ program: "toolsrv", stream: { write: (line: string) => lines.push(line) } });
    const secrets = new DaemonSecrets(log);
    secrets.add("key");
    secrets.add("owner-key-2");
    secrets.add("");
    const text = "attach with key, then owner-key-2";
    log.info(text);
    expect(lines.join("")).toContain("attach with [redacted], then [redacted]");
    expect(secrets.redact(text)).toBe("attach with [redacted], then [redacted]");
    expect(secrets.redact("nothing secret")).toBe("nothing secret");
  });
});
