import type { OllieClient } from "@ollie/client";
import { statusLines } from "../frontend/status-lines.js";

/** `ollie status [SESSION]`: prints its lines (see statusLines). */
export async function statusCommand(client: OllieClient, session: string | undefined): Promise<number> {
  process.stdout.write(await statusLines(client, session));
  return 0;
}
