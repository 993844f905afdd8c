import { type Backend, BackendError } from "@ollie/backends";
import { describeError } from "../events/describe-error.js";

/**
 * A backend failed with something other than a BackendError — a Backend of your own that throws its own
 * errors, a credential helper that failed before anything was sent — kept as `cause`. Not retried, as
 * nothing says a retry would help; the message starts with the backend's name, as every BackendError's does.
 */
export class UnknownBackendError extends BackendError {
  override readonly name = "UnknownBackendError";
  readonly retryable = false;
  constructor(backend: Pick<Backend, "provider" | "name">, cause: unknown) {
    super({ provider: backend.provider, profile: backend.name, providerMessage: describeError(cause) });
    this.cause = cause;
  }
}

/** A backend's failure as a BackendError: as it came when it is one, else wrapped (see UnknownBackendError). */
export const backendFailure = (backend: Pick<Backend, "provider" | "name">, error: unknown): BackendError =>
  error instanceof BackendError ? error : new UnknownBackendError(backend, error);
