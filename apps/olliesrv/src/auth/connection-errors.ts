import { RateLimitedLines } from "@ollie/log";
import { ConnectionDroppedError, ConnectionRefusedError } from "@ollie/ninep";
import { MountRefusal } from "./mount-socket.js";

/**
 * What olliesrv does with what its 9P server cannot tell a client (`ServerOptions.onError`): a connection
 * refused as it arrived is an audit line, one dropped for breaking the protocol or not attaching in time a
 * `9p` warning, each at most 20 per peer (a user, a TCP address) in 10 s and the rest summed up, so that no
 * flood of connections floods the log. A refused mount-socket connection is on the audit trail already.
 */
export function connectionErrors(
  trail: RateLimitedLines,
  warn: (line: string) => void,
): (error: Error) => void {
  const dropped = new RateLimitedLines(warn, 20, 10_000, "dropped connections");
  return (error) => {
    if (error.cause instanceof MountRefusal) return;
    if (error instanceof ConnectionRefusedError) trail.record(error.message, error.peer);
    else if (error instanceof ConnectionDroppedError) dropped.record(error.message, error.peer);
    else warn(error.message);
  };
}
