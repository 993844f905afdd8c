import { type ConfigDocument, ConfigError, checkDocument, parseConfigText } from "@ollie/config-file";
import { z } from "zod";

/** What a request written to `bypass/new` is called in its errors: `bypass request:1:30: env: unknown key …`. */
const SOURCE = "bypass request";

/** What the text must be, said when it is not. */
const SHAPE = 'a bypass request is a JSON object: {"operation": NAME, "reason": WHY, "argv": [WORDS]}';

/** A bypass request an agent wrote that cannot be filed: every problem, each with its place. */
export class BypassFilingError extends ConfigError {
  override readonly name = "BypassFilingError";
}

/** Some text, trimmed; `needs` says what it is for when there is none. */
const words = (needs: string) => z.string({ error: needs }).trim().min(1, { error: needs });

const filingSchema = z.strictObject(
  {
    operation: words("needed: the name of an operation of the bypass policy"),
    reason: words("needed: why, for the person deciding"),
    argv: z
      .array(z.string({ error: "a word: a string" }), { error: "a list of words: the whole command" })
      .min(1, "a list of words: the whole command")
      .optional(),
  },
  { error: SHAPE },
);

/** What an agent asks for: the operation, why, and optionally the whole command. */
export type BypassFiling = z.output<typeof filingSchema>;

/**
 * Reads what an agent writes to `bypass/new`: a JSON object with `operation` (a name in toolsrv's policy),
 * `reason` (for the person deciding) and optionally `argv` (the whole command). `cwd` is refused: the
 * command runs in the session's directory. Throws a BypassFilingError naming each bad key and where it is.
 */
export function parseFiling(body: string): BypassFiling {
  let doc: ConfigDocument;
  try {
    doc = parseConfigText(body, SOURCE, "json", BypassFilingError);
  } catch (error) {
    if (!(error instanceof BypassFilingError)) throw error;
    throw new BypassFilingError(
      SOURCE,
      error.problems.map((p) => ({ ...p, problem: `${p.problem} (${SHAPE})` })),
    );
  }
  const { data, locate } = doc;
  if (typeof data === "object" && data !== null && Object.hasOwn(data, "cwd")) {
    const position = locate([], "cwd");
    throw new BypassFilingError(SOURCE, {
      key: "cwd",
      problem: "not yours to choose: the command runs in the session's directory",
      ...(position && { position }),
    });
  }
  return checkDocument(filingSchema, doc, BypassFilingError);
}
