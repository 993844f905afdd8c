/** A program or category name stands unquoted in every line, so it may hold nothing that could forge one. */
const NAME = /^[a-z0-9][a-z0-9_-]*$/;

export const NAME_RULE = "lowercase letters, digits, '_' and '-'";

export const isLogName = (name: string) => NAME.test(name);

export function assertLogName(name: string, what: "program" | "category"): void {
  if (!isLogName(name)) throw new TypeError(`'${name}' is not a log ${what} name (${NAME_RULE})`);
}
