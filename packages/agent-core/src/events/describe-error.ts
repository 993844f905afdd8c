/** What a failure says, whatever was thrown. */
export const describeError = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
