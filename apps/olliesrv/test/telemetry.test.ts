import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type Ollie, startOllie, untilTurns } from "./harness.js";
import { OtlpReceiver } from "./otlp-receiver.js";

const RECORD_IMPORTS = fileURLToPath(new URL("fixtures/record-imports.mjs", import.meta.url));

let o: Ollie | undefined;
let receiver: OtlpReceiver | undefined;
let scratch: string | undefined;
afterEach(async () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
  await o?.stop();
  await o?.remove();
  o = undefined;
  receiver?.close();
  receiver = undefined;
});

describe("olliesrv's telemetry", () => {
  it("loads no part of the OpenTelemetry SDK when nothing asks for export", async () => {
    const imports = join(
      await import("node:os").then((os) => os.tmpdir()),
      `imports-${process.pid}-${Date.now()}`,
    );
    o = await startOllie("olliesrv-otel-off-", {
      nodeArgs: ["--import", RECORD_IMPORTS],
      env: { RECORD_IMPORTS: imports },
    });
    o.mock.enqueue({ text: "Hello." });
    const id = await o.create(`cwd=${o.work}`);
    await o.fsys.writeFile(`session/${id}/agent/main/prompt`, "Hi.");
    await untilTurns(o, `session/${id}/agent/main`, 1);
    const loaded = readFileSync(imports, "utf8").split("\n");
    // The recorder saw the API the libraries use (a no-op here), so it would have seen the SDK.
    expect(loaded.some((url) => url.includes("/@opentelemetry/api/"))).toBe(true);
    expect(
      loaded.filter((url) => /@opentelemetry\/(sdk-|exporter-|resources|core|context-async-hooks)/.test(url)),
    ).toEqual([]);
  });

  it("exports the daemon's sessions and agents as metrics to an OTLP endpoint in the environment", async () => {
    receiver = await OtlpReceiver.start();
    o = await startOllie("olliesrv-otel-metrics-", {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_METRIC_EXPORT_INTERVAL: "100" },
    });
    const id = await o.create(`cwd=${o.work}`);
    const active = await receiver.until(() =>
      receiver?.metrics.find(
        (m) => m.name === "ollie.sessions.active" && m.points.some((p) => p.value === 1),
      ),
    );
    expect(active).toMatchObject({ service: "olliesrv", unit: "{session}" });
    expect(id).toMatch(/\d/);
    expect(await o.logged(/exporting traces \(otlp\) and metrics \(otlp\)/)).toBeTruthy();
  });
});
