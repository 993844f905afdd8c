import { RateLimitedLines } from "@ollie/log";
import { ConnectionDroppedError, ConnectionRefusedError } from "@ollie/ninep";

/**
 * What toolsrv does with what its 9P server cannot tell a client (`ServerOptions.onError`): a connection
 * refused as it arrived, or dropped for breaking the protocol or not attaching in time, is a warning — at most
 * 20 per peer (olliesrv, the agents' tools together, another user) in 10 s, the rest summed up — so that a tool
 * that floods toolsrv's socket cannot flood its log.
 */
export function connectionLog(warn: (line: string) => void): (error: Error) => void {
  const refused = new RateLimitedLines(warn, 20, 10_000, "refused connections");
  const dropped = new RateLimitedLines(warn, 20, 10_000, "dropped connections");
  return (error) => {
    if (error instanceof ConnectionRefusedError) refused.record(error.message, error.peer);
    else if (error instanceof ConnectionDroppedError) dropped.record(error.message, error.peer);
    else warn(error.message);
  };
}
