import { type Fsys, formatAddress, hmacAuthenticator, NinepClient, serviceAddress } from "@ollie/ninep";
import { ToolError } from "./tool-io.js";

/**
 * Runs `body` on the Ollie namespace attached as this agent, then hangs up. olliesrv lets an agent in only
 * as the principal it proves (OLLIE_UNAME, with its secret OLLIE_KEY), so whatever the tool does there is
 * done, and allowed or refused, as that agent.
 */
export async function withNamespace<T>(body: (fsys: Fsys) => Promise<T>): Promise<T> {
  const uname = process.env.OLLIE_UNAME;
  if (!uname) throw new ToolError("OLLIE_UNAME is not set: toolsrv did not say who this agent is");
  const key = process.env.OLLIE_KEY;
  const address = process.env.OLLIE_ADDRESS || formatAddress(serviceAddress("ollie"));
  const client = await NinepClient.dial(address).catch((error: unknown) => {
    throw new ToolError(`cannot reach the namespace at ${address}: ${(error as Error).message}`);
  });
  try {
    // Without a key the attach goes unauthenticated: enough for a server that asks for no proof.
    const fsys = await client
      .attach({ uname, ...(key && { authenticator: hmacAuthenticator(key) }) })
      .catch((error: unknown) => {
        const hint = key ? "" : " (OLLIE_KEY is not set)";
        throw new ToolError(
          `authentication refused for ${uname} at ${address}: ${(error as Error).message}${hint}`,
        );
      });
    return await body(fsys);
  } finally {
    client.close();
  }
}
