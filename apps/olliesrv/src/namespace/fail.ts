import { NinepError } from "@ollie/ninep";

/** Refuses a request: `message` is the Rerror the client reads. */
export const fail = (message: string): never => {
  throw new NinepError(message);
};
