export {
  type CheckOptions,
  type ConfigDocument,
  type ConfigErrorType,
  type ConfigFormat,
  checkConfig,
  checkDocument,
  parseConfigText,
} from "./config-document.js";
export {
  ConfigError,
  type ConfigProblem,
  type FilePosition,
  formatProblem,
  formatProblems,
} from "./config-error.js";
export { describeIssues, type Locate } from "./describe-issues.js";
export { keyPath } from "./key-path.js";
export { formatOf, type ReadConfigOptions, readConfigDocument, readConfigFile } from "./read-config-file.js";
export { syncDirectory, writeFileAtomic } from "./write-file-atomic.js";
