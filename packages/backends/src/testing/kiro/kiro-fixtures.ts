import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

// Credential files as the Kiro IDE leaves them under ~/.aws/sso/cache (B.3.1), written below a test's own
// home directory. The default `expiresAt` is a minute ago, so a client must refresh before its first call.

export const KIRO_TOKEN_FILE = "kiro-auth-token.json";

export interface KiroSocialFixture {
  accessToken: string;
  refreshToken: string;
  profileArn?: string;
  /** Default: one minute ago. */
  expiresAt?: Date;
  /** "Google" unless given. */
  provider?: string;
}

export interface KiroIdcFixture {
  accessToken: string;
  refreshToken: string;
  clientId: string;
  clientSecret: string;
  /** Default: one minute ago. */
  expiresAt?: Date;
  /** "BuilderId" unless given (the document is unsure of the values). */
  provider?: string;
  region?: string;
  startUrl?: string;
  /** When the client registration runs out; default 90 days from now. */
  registrationExpiresAt?: Date;
}

const cacheDir = (home: string) => join(home, ".aws", "sso", "cache");
const defaultExpiry = () => new Date(Date.now() - 60_000);

async function writeJson(path: string, value: unknown): Promise<string> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

/** Writes `<home>/.aws/sso/cache/kiro-auth-token.json` of a social (Google/GitHub) login; returns its path. */
export async function writeKiroSocialToken(home: string, fixture: KiroSocialFixture): Promise<string> {
  await mkdir(cacheDir(home), { recursive: true });
  return writeJson(join(cacheDir(home), KIRO_TOKEN_FILE), {
    accessToken: fixture.accessToken,
    refreshToken: fixture.refreshToken,
    expiresAt: (fixture.expiresAt ?? defaultExpiry()).toISOString(),
    authMethod: "social",
    provider: fixture.provider ?? "Google",
    ...(fixture.profileArn !== undefined && { profileArn: fixture.profileArn }),
  });
}

/**
 * Writes an IAM Identity Center / Builder ID login: `kiro-auth-token.json` naming its client registration
 * by `clientIdHash`, and that registration as `<clientIdHash>.json` beside it. The hash is a SHA-1 of the
 * start URL, as the IDE's is sha1-shaped; clients only use it as a file name.
 */
export async function writeKiroIdcToken(
  home: string,
  fixture: KiroIdcFixture,
): Promise<{ tokenPath: string; registrationPath: string; clientIdHash: string }> {
  await mkdir(cacheDir(home), { recursive: true });
  const startUrl = fixture.startUrl ?? "https://view.awsapps.com/start";
  const clientIdHash = createHash("sha1").update(JSON.stringify({ startUrl })).digest("hex");
  const tokenPath = await writeJson(join(cacheDir(home), KIRO_TOKEN_FILE), {
    accessToken: fixture.accessToken,
    refreshToken: fixture.refreshToken,
    expiresAt: (fixture.expiresAt ?? defaultExpiry()).toISOString(),
    authMethod: "IdC",
    provider: fixture.provider ?? "BuilderId",
    region: fixture.region ?? "us-east-1",
    clientIdHash,
  });
  const registrationPath = await writeJson(join(cacheDir(home), `${clientIdHash}.json`), {
    clientId: fixture.clientId,
    clientSecret: fixture.clientSecret,
    expiresAt: (fixture.registrationExpiresAt ?? new Date(Date.now() + 90 * 86_400_000)).toISOString(),
  });
  return { tokenPath, registrationPath, clientIdHash };
}

const EXAMPLE_BODY = {
  conversationState: {
    conversationId: "7f0f1a52-3c2e-4b6f-9a53-0d8a2f1c9e11",
    agentContinuationId: "5b6f2e1a-9d7c-4a0e-8c1b-2e3f4a5b6c7d",
    agentTaskType: "vibe",
    chatTriggerType: "MANUAL",
    history: [
      {
        userInputMessage: {
          content: "You are a coding agent.\n\nList the files.",
          modelId: "claude-sonnet-4.5",
          origin: "AI_EDITOR",
        },
      },
      {
        assistantResponseMessage: {
          content: "I'll list them.",
          toolUses: [{ toolUseId: "tooluse_Q1w2E3r4T5", name: "bash", input: { command: "ls" } }],
        },
      },
    ],
    currentMessage: {
      userInputMessage: {
        content: "Tool results provided.",
        modelId: "claude-sonnet-4.5",
        origin: "AI_EDITOR",
        userInputMessageContext: {
          toolResults: [
            { toolUseId: "tooluse_Q1w2E3r4T5", content: [{ text: "a.ts\nb.ts" }], status: "success" },
          ],
          tools: [
            {
              toolSpecification: {
                name: "bash",
                description: "Run a shell command",
                inputSchema: {
                  json: {
                    type: "object",
                    properties: { command: { type: "string" } },
                    required: ["command"],
                  },
                },
              },
            },
          ],
        },
      },
    },
  },
  profileArn: "arn:aws:codewhisperer:us-east-1:699475941385:profile/EHGA3GRVQMUK",
};

/** The full example request of B.4.2 (a social login's, so with profileArn), a fresh copy each call. */
export function kiroExampleBody(): Record<string, unknown> {
  return structuredClone(EXAMPLE_BODY);
}
