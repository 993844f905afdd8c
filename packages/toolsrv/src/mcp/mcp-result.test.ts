import { describe, expect, it } from "vitest";
import { mcpResultText } from "./mcp-result.js";

describe("mcpResultText", () => {
  it("gives text as it is, and media and binary resources as their type and size", () => {
    const png = Buffer.alloc(1000, 7).toString("base64");
    expect(
      mcpResultText({
        content: [
          { type: "text", text: "here:" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "audio", data: Buffer.alloc(10).toString("base64"), mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "héllo" } },
          { type: "resource", resource: { uri: "file:///b.bin", blob: Buffer.alloc(2).toString("base64") } },
          {
            type: "resource_link",
            uri: "file:///c.pdf",
            name: "c",
            mimeType: "application/pdf",
            size: 12_345,
            description: "the report",
          },
        ],
      }),
    ).toBe(
      [
        "here:",
        "[image: image/png, 1,000 bytes]",
        "[audio: audio/wav, 10 bytes]",
        "[resource file:///a.txt: text/plain, 6 bytes]\nhéllo",
        "[resource file:///b.bin: no MIME type, 2 bytes]",
        "[resource link file:///c.pdf (c): application/pdf, 12,345 bytes] — the report",
      ].join("\n"),
    );
  });

  it("falls back to structured content when there is no other", () => {
    expect(mcpResultText({ content: [], structuredContent: { temperature: 21 } })).toBe(
      '{\n  "temperature": 21\n}',
    );
  });
});
