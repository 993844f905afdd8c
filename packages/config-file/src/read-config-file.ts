import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import type { z } from "zod";
import {
  type ConfigDocument,
  type ConfigErrorType,
  type ConfigFormat,
  checkDocument,
  parseConfigText,
} from "./config-document.js";
import { ConfigError } from "./config-error.js";

export interface ReadConfigOptions {
  /** `json` or `yaml`; by default from the file's extension (`.json` is JSON, anything else YAML). */
  format?: ConfigFormat;
  errorType?: ConfigErrorType;
}

/** The format a file's name implies. */
export function formatOf(file: string): ConfigFormat {
  return extname(file).toLowerCase() === ".json" ? "json" : "yaml";
}

/**
 * Reads and parses a configuration file, keeping positions, for checks of the caller's own beyond a schema.
 * A missing file is `undefined`; one that cannot be read or does not parse throws ConfigError (or
 * `errorType`).
 */
export async function readConfigDocument(
  file: string,
  options: ReadConfigOptions = {},
): Promise<ConfigDocument | undefined> {
  const ErrorType = options.errorType ?? ConfigError;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ErrorType(file, [{ problem: `cannot read: ${(error as Error).message}` }]);
  }
  return parseConfigText(text, file, options.format ?? formatOf(file), ErrorType);
}

/**
 * Reads, parses and checks a configuration file. A missing file is `undefined` (most configuration is
 * optional; the caller says what absence means); a file that cannot be read, does not parse or does not
 * fit `schema` throws ConfigError (or `errorType`) naming the file, and the line, column and key of each
 * problem.
 */
export async function readConfigFile<S extends z.ZodType>(
  schema: S,
  file: string,
  options: ReadConfigOptions = {},
): Promise<z.output<S> | undefined> {
  const doc = await readConfigDocument(file, options);
  return doc && checkDocument(schema, doc, options.errorType);
}
