/** A login that did not complete: the code expired, the user refused, or the service refused the app. */
export class LoginError extends Error {
  override readonly name = "LoginError";
  constructor(
    /** The OAuth error code (expired_token, access_denied, …), or "unexpected" for an answer not understood. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the user must do to finish a device-flow login (RFC 8628). */
export interface DeviceCode {
  userCode: string;
  verificationUri: string;
  /** The same page with the code filled in, when the service gives one. */
  verificationUriComplete?: string;
  expiresInSeconds: number;
}
