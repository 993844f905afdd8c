import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { type ConsumerProject, projectAt } from "./consumer-project.js";
import { publishablePackages } from "./pack-workspace.js";
import { readmeCode, relativeLinks } from "./readme-code.js";

let project: ConsumerProject;
const installed = (name: string) => join(project.dir, "node_modules", name);
const packages = publishablePackages();

beforeAll(() => {
  project = projectAt(inject("consumerDir"));
});

describe("the installed packages", () => {
  it.each(packages.map((p) => p.name))(
    "%s carries its LICENSE and README, and its README's links resolve",
    (name) => {
      const dir = installed(name);
      expect(readFileSync(join(dir, "LICENSE"), "utf8")).toMatch(/^MIT License/);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      expect(manifest.repository).toMatchObject({ type: "git", directory: expect.any(String) });
      expect(manifest).toMatchObject({ homepage: expect.any(String), bugs: expect.any(Object) });
      const readme = join(dir, "README.md");
      for (const link of relativeLinks(readme)) {
        expect(
          existsSync(join(dir, link)),
          `${name}'s README links to ${link}, which is not in the package`,
        ).toBe(true);
      }
      if (manifest.exports) expect(readFileSync(readme, "utf8")).toMatch(/ESM only, Node ≥ 20\.\d+/);
    },
  );

  it("came from their tarballs: npm asked the registry for no @ollie package, the other CPU's launcher included", () => {
    expect(inject("ollieRequests")).toEqual([]);
  });

  it.each(packages.map((p) => p.name))(
    "%s does not install @types/node: a consumer who type-checks has it (an optional peer at most)",
    (name) => {
      const manifest = JSON.parse(readFileSync(join(installed(name), "package.json"), "utf8"));
      expect(Object.keys(manifest.dependencies ?? {})).not.toContain("@types/node");
      if (manifest.peerDependencies?.["@types/node"])
        expect(manifest.peerDependenciesMeta?.["@types/node"]).toEqual({ optional: true });
    },
  );

  it("toolsrv's tools are executable, as the tool server needs them", () => {
    const tools = join(installed("toolsrv"), "tools");
    const names = readdirSync(tools);
    expect(names.length).toBeGreaterThan(5);
    for (const tool of names) expect(() => accessSync(join(tools, tool), constants.X_OK), tool).not.toThrow();
  });
});

describe("a strict TypeScript consumer", () => {
  const source = () => join(project.dir, "src");

  beforeAll(async () => {
    mkdirSync(source(), { recursive: true });
    // Every entry point of every package, imported as a consumer writes it.
    const entries = packages.flatMap(({ name }) => {
      const manifest = JSON.parse(readFileSync(join(installed(name), "package.json"), "utf8"));
      return Object.keys(manifest.exports ?? {})
        .filter((key) => key !== "./package.json")
        .map((key) => (key === "." ? name : `${name}/${key.slice(2)}`));
    });
    writeFileSync(
      join(source(), "entry-points.ts"),
      `${entries.map((e, i) => `import * as entry${i} from "${e}";`).join("\n")}
const loaded: Record<string, number> = {
${entries.map((e, i) => `  "${e}": Object.keys(entry${i}).length,`).join("\n")}
};
console.log(JSON.stringify(loaded));
`,
    );
    writeFileSync(
      join(source(), "agent-core-readme.ts"),
      readmeCode(installed("@ollie/agent-core/README.md"), "ts")[0]!,
    );
    writeFileSync(
      join(source(), "virtfs-readme.ts"),
      readmeCode(installed("@ollie/virtfs/README.md"), "ts")[0]!,
    );
    writeFileSync(
      join(project.dir, "tsconfig.json"),
      `${JSON.stringify(
        {
          compilerOptions: {
            strict: true,
            skipLibCheck: false,
            module: "nodenext",
            moduleResolution: "nodenext",
            target: "es2022",
            types: ["node"],
            outDir: "out",
          },
          include: ["src"],
        },
        null,
        2,
      )}\n`,
    );
    const tsc = await execa(project.bin("tsc"), ["-p", "."], {
      cwd: project.dir,
      env: project.env,
      extendEnv: false,
      reject: false,
    });
    expect(tsc.stdout, "tsc found errors").toBe("");
    expect(tsc.exitCode).toBe(0);
  });

  it("loads every entry point of every package", async () => {
    const { stdout } = await execa(process.execPath, ["out/entry-points.js"], {
      cwd: project.dir,
      env: project.env,
      extendEnv: false,
    });
    const loaded: Record<string, number> = JSON.parse(stdout);
    expect(Object.keys(loaded)).toContain("@ollie/agent-core");
    for (const [entry, exports] of Object.entries(loaded)) expect(exports, entry).toBeGreaterThan(0);
  });

  it("runs the agent-core README's example as written", async () => {
    const { stdout } = await execa(process.execPath, ["out/agent-core-readme.js"], {
      cwd: project.dir,
      env: project.env,
      extendEnv: false,
    });
    expect(stdout).toContain("There are 4 words.");
    expect(stdout).toMatch(/done after 1 round\(s\) of tools, 2 requests/);
  });

  it("runs the config-file README's example as written, and prints what the README says", async () => {
    const readme = installed("@ollie/config-file/README.md");
    writeFileSync(join(project.dir, "config-example.mjs"), readmeCode(readme, "js")[0]!);
    const { stdout } = await execa(process.execPath, ["config-example.mjs"], {
      cwd: project.dir,
      env: project.env,
      extendEnv: false,
    });
    const printed = readFileSync(readme, "utf8")
      .split("`node example.mjs` prints:\n\n```\n")[1]!
      .split("```")[0]!;
    expect(`${stdout}\n`).toBe(printed);
  });

  it("serves the virtfs README's notes service and uses it with the installed ninep", async () => {
    const address = `unix!${join(project.dir, "notes.sock")}`;
    const service = execa(process.execPath, ["out/virtfs-readme.js", address], {
      cwd: project.dir,
      env: project.env,
      extendEnv: false,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        service.stdout!.on(
          "data",
          (chunk: Buffer) => chunk.toString().includes("serving notes") && resolve(),
        );
        service.catch(reject);
      });
      const ninep = (args: string[], input?: string) =>
        execa(project.bin("ninep"), ["-a", address, ...args], {
          env: project.env,
          extendEnv: false,
          ...(input !== undefined && { input }),
        });
      await ninep(["write", "ctl"], "save todo buy milk\n");
      expect((await ninep(["ls", "notes"])).stdout).toBe("todo");
      expect((await ninep(["read", "notes/todo"])).stdout).toBe("buy milk");
      // The README's create and remove options, through the installed ninep as the service's own user.
      await ninep(["create", "notes/bread"]);
      await ninep(["write", "notes/bread"], "rye\n");
      expect((await ninep(["ls", "notes"])).stdout).toBe("bread\ntodo");
      expect((await ninep(["read", "notes/bread"])).stdout).toBe("rye");
      await ninep(["rm", "notes/bread"]);
      expect((await ninep(["ls", "notes"])).stdout).toBe("todo");
    } finally {
      service.kill();
      await service.catch(() => {});
    }
  });
});
