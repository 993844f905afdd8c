const LITERAL = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/;

/** The first place where `text` stops being JSON (RFC 8259) and what was expected there; undefined if it is JSON. */
export function findJsonSyntaxError(text: string): { offset: number; problem: string } | undefined {
  let at = 0;
  const fail = (problem: string): never => {
    throw { offset: at, problem };
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const expect = (char: string, what: string) => {
    space();
    if (text[at] !== char) fail(`expected ${what}`);
    at++;
  };
  const string = () => {
    at++;
    while (at < text.length && text[at] !== '"') {
      const c = text.charCodeAt(at);
      if (c < 0x20) fail("a control character inside a string (escape it)");
      if (text[at] === "\\") {
        at++;
        if (text[at] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail("\\u needs four hex digits");
          at += 4;
        } else if (!'"\\/bfnrt'.includes(text[at] ?? "")) fail("an unknown escape in a string");
      }
      at++;
    }
    if (at >= text.length) fail("the string is not closed");
    at++;
  };
  const members = (close: "}" | "]", member: () => void) => {
    at++;
    space();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[at] === close) {
        at++;
        return;
      }
      if (text[at] !== ",") fail(`expected ',' or '${close}'`);
      at++;
    }
  };
  const value = (depth: number) => {
    if (depth > 512) fail("nested too deeply");
    space();
    const c = text[at];
    if (c === "{") {
      members("}", () => {
        space();
        if (text[at] !== '"') fail("expected a key in double quotes");
        string();
        expect(":", "':' after the key");
        value(depth + 1);
      });
    } else if (c === "[") {
      members("]", () => value(depth + 1));
    } else if (c === '"') {
      string();
    } else {
      const literal = LITERAL.exec(text.slice(at, at + 400));
      if (!literal) return fail(at >= text.length ? "unexpected end of the text" : "expected a value");
      at += literal[0].length;
    }
  };
  try {
    value(0);
    space();
    if (at < text.length) fail("more text after the JSON value");
    return undefined;
  } catch (error) {
    if (error && typeof error === "object" && "offset" in error)
      return error as { offset: number; problem: string };
    throw error;
  }
}
