// olliesrv's telemetry: settings from OTEL_* and olliesrv.yaml's `otel` section, resolved before anything
// starts (a wrong one stops the daemon, saying which), and the SDK started only when they ask for export.
import type { Logger } from "@ollie/log";
import {
  resolveTelemetrySettings,
  startTelemetry,
  type Telemetry,
  type TelemetrySettings,
} from "@ollie/telemetry/sdk";
import { fileSettingsOf, readOtelSection, toolsrvTelemetryEnv } from "./telemetry-config.js";

export interface TelemetryPlan {
  /** Undefined when nothing asks for export: no SDK package is loaded. */
  settings: TelemetrySettings | undefined;
  /** What the toolsrv olliesrv starts is given, so that it exports alike. */
  toolsrvEnv: Record<string, string>;
}

const HEADER_VARIABLES = [
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
];

/** The values of the OTLP header variables (`key=value,…`, values URL-encoded), as written and decoded. */
function headerValues(env: NodeJS.ProcessEnv): string[] {
  return HEADER_VARIABLES.flatMap((name) =>
    (env[name] ?? "").split(",").flatMap((pair) => {
      const value = pair.slice(pair.indexOf("=") + 1).trim();
      if (!pair.includes("=") || value === "") return [];
      let decoded = value;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        // Not URL-encoded after all: the value as written is the secret.
      }
      return decoded === value ? [value] : [value, decoded];
    }),
  );
}

/**
 * Reads the settings; throws TelemetrySettingsError for OTEL_* variables that cannot be followed, a
 * ConfigError for a wrong olliesrv.yaml. Exporter headers, from the file or the environment, are
 * credentials: they become secrets of the log (and so of every exported span) at once.
 */
export async function planTelemetry(
  env: NodeJS.ProcessEnv,
  configDir: string,
  log: Logger,
): Promise<TelemetryPlan> {
  const section = await readOtelSection(configDir);
  for (const value of [...Object.values(section?.headers ?? {}), ...headerValues(env)]) log.addSecret(value);
  return {
    settings: resolveTelemetrySettings(env, fileSettingsOf(section)),
    toolsrvEnv: toolsrvTelemetryEnv(env, section),
  };
}

/**
 * Starts export as planned, its complaints going to the log's `telemetry` category and every span passing
 * through `redact` on its way out; undefined if nothing is exported.
 */
export async function startPlannedTelemetry(
  plan: TelemetryPlan,
  log: Logger,
  redact: (text: string) => string,
): Promise<Telemetry | undefined> {
  if (!plan.settings) return undefined;
  const telemetryLog = log.child("telemetry");
  const telemetry = await startTelemetry({
    service: "olliesrv",
    version: __PACKAGE_VERSION__,
    settings: plan.settings,
    redact,
    warn: telemetryLog.warn,
  });
  const { traces, metrics } = plan.settings;
  telemetryLog.info(
    `exporting traces (${traces.join(", ") || "none"}) and metrics (${metrics.join(", ") || "none"})`,
  );
  return telemetry;
}
