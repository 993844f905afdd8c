// @ollie/telemetry/sdk: starting OpenTelemetry's SDK in a daemon. It needs the SDK packages (optional peer
// dependencies of @ollie/telemetry), and imports them only when startTelemetry is called.

export { RedactingSpanExporter } from "./sdk/redacting-exporter.js";
export {
  type OtlpProtocol,
  resolveTelemetrySettings,
  type SignalExporter,
  type TelemetryFileSettings,
  type TelemetrySettings,
  TelemetrySettingsError,
} from "./sdk/settings.js";
export { type StartTelemetryOptions, startTelemetry, type Telemetry } from "./sdk/start.js";
