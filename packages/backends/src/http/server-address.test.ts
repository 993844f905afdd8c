import { describe, expect, it } from "vitest";
import { GeminiBackend } from "../providers/gemini/gemini-backend.js";
import { OpenAiBackend } from "../providers/openai/openai-backend.js";
import { serverOf } from "./server-address.js";

describe("a backend's server address", () => {
  it("is the base URL's host and port, the scheme's default when none is written", () => {
    expect(serverOf("https://api.openai.com/v1")).toEqual({ address: "api.openai.com", port: 443 });
    expect(serverOf("http://localhost:11434")).toEqual({ address: "localhost", port: 11434 });
    expect(serverOf("http://[::1]:8080/v1")).toEqual({ address: "::1", port: 8080 });
    expect(serverOf("http://ollama.lan")).toEqual({ address: "ollama.lan", port: 80 });
  });

  it("leaves out credentials in the user part or the query", () => {
    const server = serverOf("https://me:hunter2@generativelanguage.googleapis.com/v1?key=AIzaSECRET");
    expect(server).toEqual({ address: "generativelanguage.googleapis.com", port: 443 });
    expect(JSON.stringify(server)).not.toMatch(/hunter2|SECRET/);
  });

  it("is unknown for no URL or one that is not http", () => {
    expect(serverOf("")).toBeUndefined();
    expect(serverOf("not a url")).toBeUndefined();
    expect(serverOf("unix:/run/ollama.sock")).toBeUndefined();
  });

  it("is what an HTTP backend reports, from its configured or default base", () => {
    const custom = new OpenAiBackend({ baseUrl: "http://127.0.0.1:4000/v1/", model: "m" });
    expect(custom.server).toEqual({ address: "127.0.0.1", port: 4000 });
    expect(new GeminiBackend({ model: "gemini-2.5-flash", apiKey: "k" }).server).toEqual({
      address: "generativelanguage.googleapis.com",
      port: 443,
    });
  });
});
