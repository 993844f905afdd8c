import { describe, expect, it } from "vitest";
import { contentKind, decodeBody, mediaType } from "./content-kind.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("mediaType", () => {
  it("takes the MIME type in lower case and the charset, quoted or not", () => {
    expect(mediaType('Text/HTML; Charset="ISO-8859-1"')).toEqual({
      mime: "text/html",
      charset: "ISO-8859-1",
    });
    expect(mediaType("application/json")).toEqual({ mime: "application/json" });
    expect(mediaType("")).toBeUndefined();
    expect(mediaType(null)).toBeUndefined();
  });
});

describe("contentKind", () => {
  it("follows the Content-Type", () => {
    expect(contentKind(mediaType("application/xhtml+xml"), bytes(""))).toBe("html");
    for (const type of [
      "text/markdown",
      "application/json",
      "application/ld+json",
      "image/svg+xml",
      "text/csv",
    ])
      expect(contentKind(mediaType(type), bytes("{}"))).toBe("text");
    for (const type of ["image/png", "application/pdf", "application/zip"])
      expect(contentKind(mediaType(type), bytes("text anyway"))).toBe("binary");
  });

  it("sniffs a body served without a type or as octet-stream", () => {
    expect(contentKind(undefined, bytes("\uFEFF  <!DOCTYPE html><title>x</title>"))).toBe("html");
    expect(contentKind(mediaType("application/octet-stream"), bytes("just words"))).toBe("text");
    expect(contentKind(undefined, new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00]))).toBe("binary");
    expect(contentKind(undefined, new Uint8Array([0xc3, 0x28]))).toBe("binary");
    // A sample that ends inside a character is still text.
    expect(contentKind(undefined, bytes("caf\u00e9").subarray(0, 4))).toBe("text");
  });
});

describe("decodeBody", () => {
  it("uses the header's charset, else an HTML page's <meta charset>, else UTF-8", () => {
    const latin1 = Buffer.from('<meta charset="windows-1252"><p>caf\xe9</p>', "latin1");
    expect(decodeBody(latin1, mediaType("text/html"), "html")).toBe(
      '<meta charset="windows-1252"><p>café</p>',
    );
    expect(decodeBody(Buffer.from("\xe9", "latin1"), mediaType("text/plain; charset=latin1"), "text")).toBe(
      "é",
    );
    expect(decodeBody(bytes("é"), mediaType("text/plain; charset=no-such-charset"), "text")).toBe("é");
  });
});
