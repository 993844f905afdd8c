/** A piece of the text form of a message: a word, a quoted string, a (group) or a [list]. */
export type Token =
  | { kind: "word"; text: string }
  | { kind: "string"; bytes: Buffer }
  | { kind: "group"; items: Token[] }
  | { kind: "list"; items: Token[] };

const ESCAPES: Record<string, number> = { n: 10, t: 9, "\\": 92, "'": 39 };

/** Splits one line of the text form (as `formatMessage` writes it) into tokens. */
export function tokenize(line: string): Token[] {
  let i = 0;
  const parseSeq = (close: string | null): Token[] => {
    const items: Token[] = [];
    for (;;) {
      while (i < line.length && /\s/.test(line[i]!)) i++;
      if (i >= line.length) {
        if (close) throw new Error(`missing '${close}' in: ${line}`);
        return items;
      }
      const ch = line[i]!;
      if (ch === close) {
        i++;
        return items;
      }
      if (ch === ")" || ch === "]") throw new Error(`unexpected '${ch}' in: ${line}`);
      if (ch === "(" || ch === "[") {
        i++;
        const inner = parseSeq(ch === "(" ? ")" : "]");
        items.push(ch === "(" ? { kind: "group", items: inner } : { kind: "list", items: inner });
      } else if (ch === "'") {
        items.push({ kind: "string", bytes: parseQuoted() });
      } else {
        const start = i;
        while (i < line.length && !/[\s()[\]']/.test(line[i]!)) i++;
        items.push({ kind: "word", text: line.slice(start, i) });
      }
    }
  };
  const parseQuoted = (): Buffer => {
    i++;
    const bytes: number[] = [];
    for (;;) {
      if (i >= line.length) throw new Error(`unterminated string in: ${line}`);
      const ch = line[i]!;
      if (ch === "'") {
        i++;
        if (line[i] === "…") while (i < line.length && !/\s/.test(line[i]!)) i++;
        return Buffer.from(bytes);
      }
      if (ch === "\\") {
        const next = line[i + 1]!;
        if (next === "x") {
          bytes.push(Number.parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
        } else {
          const code = ESCAPES[next];
          if (code === undefined) throw new Error(`bad escape \\${next} in: ${line}`);
          bytes.push(code);
          i += 2;
        }
        continue;
      }
      const cp = line.codePointAt(i)!;
      const s = String.fromCodePoint(cp);
      bytes.push(...Buffer.from(s, "utf8"));
      i += s.length;
    }
  };
  return parseSeq(null);
}

/** Whether `actual` matches `expected`, where the word `*` in `expected` matches any one token. */
export function tokensMatch(expected: Token[], actual: Token[]): boolean {
  if (expected.length !== actual.length) return false;
  return expected.every((e, i) => tokenMatches(e, actual[i]!));
}

function tokenMatches(e: Token, a: Token): boolean {
  if (e.kind === "word" && e.text === "*") return true;
  if (e.kind !== a.kind) return false;
  switch (e.kind) {
    case "word":
      return e.text === (a as typeof e).text;
    case "string":
      return e.bytes.equals((a as typeof e).bytes);
    case "group":
    case "list":
      return tokensMatch(e.items, (a as typeof e).items);
  }
}
