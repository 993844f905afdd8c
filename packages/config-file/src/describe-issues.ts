import type { z } from "zod";
import type { ConfigProblem, FilePosition } from "./config-error.js";
import { keyPath } from "./key-path.js";
import { knownKeys } from "./known-keys.js";

/** Where a key path (or, with `key`, one key of the object at that path) is in the text; undefined if unknown. */
export type Locate = (path: readonly PropertyKey[], key?: string) => FilePosition | undefined;

const nowhere: Locate = () => undefined;

function unknownKeyProblems(schema: z.ZodType, issue: z.core.$ZodIssueUnrecognizedKeys, locate: Locate) {
  const known = knownKeys(schema, issue.path);
  const hint = known && known.length > 0 ? ` (the keys are: ${known.join(", ")})` : "";
  return issue.keys.map((key): ConfigProblem => {
    const position = locate(issue.path, key);
    return {
      key: keyPath([...issue.path, key]),
      problem: `unknown key${hint}`,
      ...(position && { position }),
    };
  });
}

/**
 * What a failed zod check found, one problem per fault, in the user's terms: the key path, the reason and,
 * with `locate`, the place in the file. An unknown key is named itself, with the keys its object may have.
 */
export function describeIssues(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  locate: Locate = nowhere,
): ConfigProblem[] {
  return issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === "unrecognized_keys") return unknownKeyProblems(schema, issue, locate);
    const key = keyPath(issue.path);
    const position = locate(issue.path);
    return [{ ...(key && { key }), problem: issue.message, ...(position && { position }) }];
  });
}
