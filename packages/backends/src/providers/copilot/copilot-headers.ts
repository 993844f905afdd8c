/**
 * How Ollie introduces itself to GitHub and Copilot. Copilot refuses API calls without `Editor-Version`
 * ("missing Editor-Version header for IDE auth"); editors send their own name there, and so does Ollie.
 * Every Copilot client sends the `vscode-chat` integration id. A profile's `header =` lines override these.
 */
export const COPILOT_HEADERS: Readonly<Record<string, string>> = {
  "editor-version": "Ollie/1.0",
  "editor-plugin-version": "ollie/1.0",
  "copilot-integration-id": "vscode-chat",
  "user-agent": "Ollie/1.0",
};

/** The GitHub OAuth app every Copilot editor plugin signs in with (the Copilot GitHub App). */
export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";

/** The host part of a GitHub URL: "github.com", or an enterprise host. */
export function githubHost(githubUrl: string): string {
  return new URL(githubUrl).host;
}

/** The REST API of a GitHub host: api.github.com for github.com, api.HOST for GitHub Enterprise Cloud. */
export function githubApiUrl(githubUrl: string): string {
  const url = new URL(githubUrl);
  return `${url.protocol}//api.${url.host}`;
}
