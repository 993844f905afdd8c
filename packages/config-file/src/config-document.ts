import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { ConfigError, type ConfigProblem, type FilePosition } from "./config-error.js";
import { describeIssues, type Locate } from "./describe-issues.js";
import { findJsonSyntaxError } from "./json-syntax.js";

export type ConfigFormat = "json" | "yaml";

/** The error a check throws: ConfigError, or a subclass a package names its own files with. */
export type ConfigErrorType = new (
  file: string | undefined,
  problems: readonly ConfigProblem[],
) => ConfigError;

/** Parsed configuration text: its data, and where each key path is in the text. */
export interface ConfigDocument {
  readonly file: string;
  readonly data: unknown;
  readonly locate: Locate;
}

function positionAt(lines: LineCounter, offset: number): FilePosition {
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

function positionInText(text: string, offset: number): FilePosition {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

function yamlLocator(doc: Document, lines: LineCounter): Locate {
  return (path, key) => {
    const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
    if (key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      if (pair && isNode(pair.key) && pair.key.range) return positionAt(lines, pair.key.range[0]);
    }
    return isNode(node) && node.range ? positionAt(lines, node.range[0]) : undefined;
  };
}

function parseYaml(text: string, file: string, errorType: ConfigErrorType): ConfigDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const error = doc.errors[0];
  if (error) {
    const problem = `not YAML: ${error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`;
    throw new errorType(file, [{ problem, position: positionAt(lines, error.pos[0]) }]);
  }
  // A file of comments only configures nothing: an empty mapping, not null.
  return { file, data: doc.contents === null ? {} : doc.toJS(), locate: yamlLocator(doc, lines) };
}

function parseJson(text: string, file: string, errorType: ConfigErrorType): ConfigDocument {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const found = findJsonSyntaxError(text);
    const position = found && positionInText(text, found.offset);
    const problem = `not JSON: ${found?.problem ?? (error as Error).message}`;
    throw new errorType(file, [{ problem, ...(position && { position }) }]);
  }
  // JSON is parsed by the engine (fast); the text is read again for positions only when a problem needs one.
  let located: Locate | undefined;
  const locate: Locate = (path, key) => {
    if (!located) {
      const lines = new LineCounter();
      located = yamlLocator(parseDocument(text, { lineCounter: lines, uniqueKeys: false }), lines);
    }
    return located(path, key);
  };
  return { file, data, locate };
}

/**
 * Parses configuration text, keeping positions. A syntax error throws `errorType` (ConfigError by default)
 * with the line and column.
 */
export function parseConfigText(
  text: string,
  file: string,
  format: ConfigFormat,
  errorType: ConfigErrorType = ConfigError,
): ConfigDocument {
  return format === "json" ? parseJson(text, file, errorType) : parseYaml(text, file, errorType);
}

/** Options of a check: what to call the data in errors, how to place problems, which error to throw. */
export interface CheckOptions {
  /** The file (or name) of the data; absent for data with no name. */
  file?: string;
  /** Places a key path in the text the data came from. */
  locate?: Locate;
  errorType?: ConfigErrorType;
}

/**
 * Checks `data` with `schema` and returns the parsed value; throws every problem at once, each as
 * `FILE:LINE:COLUMN: KEY: PROBLEM`.
 */
export function checkConfig<S extends z.ZodType>(
  schema: S,
  data: unknown,
  options: CheckOptions = {},
): z.output<S> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const ErrorType = options.errorType ?? ConfigError;
  throw new ErrorType(options.file, describeIssues(schema, parsed.error.issues, options.locate));
}

/** Checks a parsed document with `schema`: problems carry their positions in its text. */
export function checkDocument<S extends z.ZodType>(
  schema: S,
  doc: ConfigDocument,
  errorType?: ConfigErrorType,
): z.output<S> {
  return checkConfig(schema, doc.data, {
    file: doc.file,
    locate: doc.locate,
    ...(errorType && { errorType }),
  });
}
