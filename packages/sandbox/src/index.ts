// The public face of @ollie/sandbox: every name exported here is part of the API.

export {
  type FilePosition,
  LauncherServiceStoppedError,
  PolicyError,
  ProtectedPathError,
  type ProtectedRelation,
  SandboxUnavailableError,
} from "./errors.js";
export {
  type CompileOptions,
  compileLauncher,
  LAUNCHER_TARGETS,
  type LauncherStamp,
  type LauncherTarget,
  launcherSource,
  sourceHash,
} from "./launcher/compile.js";
export {
  buildLauncher,
  type EnsureOptions,
  ensureLauncher,
  type Launcher,
  launcherHome,
  locateLauncher,
} from "./launcher/ensure-launcher.js";
export { type LauncherArgOptions, launcherArgs } from "./launcher/launcher-args.js";
export { type LandlockProbe, missingFeatures, probeLandlock } from "./launcher/probe.js";
export { describeEnforcement, type LimitEnforcement, limitEnforcement } from "./limits/enforcement.js";
export { describeLimit, type LimitReached } from "./limits/limit-reached.js";
export { type GroupLimits, type ResourceGroups, resourceGroups } from "./limits/resource-groups.js";
export { DEFAULT_POLICY } from "./policy/defaults.js";
export type { LimitName, MemoryLimit } from "./policy/limit-values.js";
export { loadPolicyFile, validateLayer } from "./policy/load.js";
export type { EntryOrigin, PolicyOrigins } from "./policy/origins.js";
export type { PathList } from "./policy/path-lists.js";
export type { SandboxPolicy } from "./policy/policy.js";
export {
  expandPolicy,
  policyPaths,
  type ResolveOptions,
  resolvePolicy,
  withLayer,
} from "./policy/resolve.js";
export { type PolicyLayer, REPLACEABLE } from "./policy/schema.js";
export { KNOWN_TEMPLATES, type TemplateContext } from "./policy/templates.js";
export { endSandboxed } from "./run/end-sandboxed.js";
export { launcherRefusal } from "./run/launcher-refusal.js";
export type { Confinement, PeerCredentials } from "./run/peer-credential-types.js";
export { confinedBeyond, ownConfinement, peerCredentials } from "./run/peer-credentials.js";
export {
  PeerCredentialsReader,
  type PeerCredentialsReaderOptions,
} from "./run/peer-credentials-reader.js";
export { type SandboxCommand, type SandboxCommandOptions, sandboxCommand } from "./run/prepare.js";
export {
  runSandboxed,
  type SandboxExit,
  type SandboxedProcess,
  type SandboxResult,
  type SandboxRunOptions,
  type SandboxStartOptions,
  startSandboxed,
} from "./run/run-sandboxed.js";
export { type UnixPeer, unixPeers } from "./run/unix-peers.js";
