import { parseArgs } from "node:util";

/** `ollie login PROVIDER [options]`, as parsed; no provider with `--help`: print the usage. */
export type LoginInvocation = { command: "login" } & (
  | { provider: undefined }
  | { provider: "copilot"; githubUrl: string | undefined; fromPlugin: boolean }
  | {
      provider: "kiro";
      startUrl: string | undefined;
      region: string | undefined;
      oidcUrl: string | undefined;
    }
);

export const LOGIN_USAGE = `usage: ollie login copilot [--github-url URL] [--import]
       ollie login kiro [--start-url URL] [--region REGION] [--oidc-url URL]
       ollie login [-h | --help]
Signs in with a device code: open the page it prints, enter the code, and the token is kept in
$XDG_DATA_HOME/ollie/credentials.json (readable by you alone), where olliesrv finds it; olliesrv need not run.
copilot: GitHub (--github-url for GitHub Enterprise Cloud, e.g. https://example.ghe.com); --import copies the
token of a Copilot editor plugin (~/.config/github-copilot) instead. kiro: an AWS Builder ID, or IAM Identity
Center with your --start-url and --region; --oidc-url replaces the AWS SSO OIDC service's address.
`;

const HELP = { help: { type: "boolean", short: "h" } } as const;
const COPILOT_OPTIONS = { ...HELP, "github-url": { type: "string" }, import: { type: "boolean" } } as const;
const KIRO_OPTIONS = {
  ...HELP,
  "start-url": { type: "string" },
  region: { type: "string" },
  "oidc-url": { type: "string" },
} as const;

/** An http(s) URL on one line, or undefined; a usage mistake otherwise. */
function url(option: string, value: string | undefined): string | undefined {
  if (value !== undefined && !/^https?:\/\/[^\s\p{Cc}]+$/u.test(value))
    throw new Error(`--${option} takes an http(s) URL, not ${JSON.stringify(value)}`);
  return value;
}

/** Reads `ollie login`'s arguments; throws (a usage mistake) when they are wrong. */
export function parseLogin(args: string[]): LoginInvocation {
  const [provider, ...rest] = args;
  const command = "login";
  switch (provider) {
    case "copilot": {
      const { values } = parseArgs({ args: rest, options: COPILOT_OPTIONS });
      if (values.help) return { command, provider: undefined };
      const githubUrl = url("github-url", values["github-url"]);
      return { command, provider, githubUrl, fromPlugin: values.import ?? false };
    }
    case "kiro": {
      const { values } = parseArgs({ args: rest, options: KIRO_OPTIONS });
      if (values.help) return { command, provider: undefined };
      const region = values.region;
      if (region !== undefined && !/^[a-z]{2}(?:-[a-z]+)+-\d$/.test(region))
        throw new Error(`--region takes an AWS region (e.g. us-east-1), not ${JSON.stringify(region)}`);
      return {
        command,
        provider,
        startUrl: url("start-url", values["start-url"]),
        region,
        oidcUrl: url("oidc-url", values["oidc-url"]),
      };
    }
    case "-h":
    case "--help":
      if (rest.length > 0) throw new Error("login --help takes nothing more");
      return { command, provider: undefined };
    case undefined:
      throw new Error("login needs a provider: copilot or kiro");
    default:
      throw new Error(`login knows copilot and kiro, not '${provider}'`);
  }
}
