import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A credential. It shows as "[redacted]" however it is printed — template strings, JSON, console.log —
 * so it cannot leak into logs or error messages by accident; `reveal()` is the one way to read it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** A value as a Secret (a Secret stays as it is). */
  static of(value: string | Secret | undefined): Secret | undefined {
    return value === undefined || value instanceof Secret ? value : new Secret(value);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
