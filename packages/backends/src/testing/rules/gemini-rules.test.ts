import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat } from "../__fixtures__/post-chat.js";
import { MockLlmServer } from "../mock-server.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start({ replies: () => ({ text: "ok" }) });
});
afterAll(async () => server.close());

const user = (text = "Weather?") => ({ role: "user", parts: [{ text }] });
const callTurn = (...calls: Array<{ id?: string; signature?: string }>) => ({
  role: "model",
  parts: calls.map((c) => ({
    functionCall: { ...(c.id && { id: c.id }), name: "get_weather", args: { city: "Paris" } },
    ...(c.signature && { thoughtSignature: c.signature }),
  })),
});
const responseTurn = (...ids: Array<string | undefined>) => ({
  role: "user",
  parts: ids.map((id) => ({
    functionResponse: { ...(id && { id }), name: "get_weather", response: { output: "18C" } },
  })),
});
const declaration = (extra: Record<string, unknown>) => ({
  tools: [{ functionDeclarations: [{ name: "get_weather", description: "Current weather", ...extra }] }],
});

async function expectRejected(
  body: unknown,
  message: string,
  model = "gemini-2.5-flash",
  details: unknown[] = [],
) {
  const r = await postChat(server, "gemini", body, { model });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: { code: 400, message, status: "INVALID_ARGUMENT", details } });
  expect(server.lastRequest?.rejected).toBe(message);
}

async function expectAccepted(body: unknown, model = "gemini-2.5-flash") {
  const r = await postChat(server, "gemini", body, { model });
  expect(server.lastRequest?.rejected).toBeUndefined();
  expect(r.status).toBe(200);
}

const MISSING = (name: string, position: number) =>
  `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;

describe("gemini request rules: contents", () => {
  it("requires contents, roles user and model, parts, and data in each part", async () => {
    await expectRejected({}, "* GenerateContentRequest.contents: contents is not specified\n");
    await expectRejected(
      { contents: [{ role: "assistant", parts: [{ text: "Hi" }] }] },
      "Please use a valid role: user, model.",
    );
    await expectRejected(
      { contents: [user(), { role: "model", parts: [] }, user("Again")] },
      "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n",
    );
    await expectRejected(
      { contents: [{ role: "user", parts: [{ thoughtSignature: "skip_thought_signature_validator" }] }] },
      "* GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n",
    );
  });

  it("wants a function-call turn right after a user turn", async () => {
    const message =
      "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
    await expectRejected({ contents: [callTurn({}), responseTurn(undefined)] }, message);
    await expectRejected(
      {
        contents: [
          user(),
          { role: "model", parts: [{ text: "Let me see." }] },
          callTurn({}),
          responseTurn(undefined),
        ],
      },
      message,
    );
  });

  it("wants function responses right after the call turn, one per call, with matching ids", async () => {
    await expectRejected(
      { contents: [user(), { role: "model", parts: [{ text: "Hm." }] }, responseTurn(undefined)] },
      "Please ensure that function response turn comes immediately after a function call turn.",
    );
    await expectRejected(
      { contents: [user(), callTurn({}, {}), responseTurn(undefined)] },
      "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
    );
    await expectRejected(
      { contents: [user(), callTurn({ id: "call_1" }), responseTurn("call_9")] },
      "functionResponse.id does not match functionCall.id",
    );
    await expectAccepted({
      contents: [user(), callTurn({ id: "call_1" }, { id: "call_2" }), responseTurn("call_2", "call_1")],
    });
    await expectAccepted({ contents: [user(), callTurn({}), responseTurn(undefined)] });
  });
});

describe("gemini request rules: thought signatures", () => {
  it("refuses a signature this mock did not issue for the model", async () => {
    await expectRejected(
      { contents: [user(), callTurn({ signature: "CiQBVKhc" }), responseTurn(undefined)] },
      "Corrupted thought signature.",
    );
    const signature = server.signatures.issue("gemini", "gemini-2.5-flash");
    await expectAccepted({ contents: [user(), callTurn({ signature }), responseTurn(undefined)] });
    await expectAccepted({
      contents: [
        user(),
        { role: "model", parts: [{ text: "Hi", thoughtSignature: signature }] },
        user("More"),
      ],
    });
  });

  it("on Gemini 3, wants the first call of each step of the current turn signed", async () => {
    const model = "gemini-3-pro-preview";
    const signed = server.signatures.issue("gemini", model);
    await expectRejected(
      { contents: [user(), callTurn({}), responseTurn(undefined)] },
      MISSING("get_weather", 2),
      model,
    );
    await expectRejected(
      {
        contents: [
          user(),
          callTurn({ signature: signed }),
          responseTurn(undefined),
          callTurn({}),
          responseTurn(undefined),
        ],
      },
      MISSING("get_weather", 4),
      model,
    );
    // Only the first call of a step carries the signature.
    await expectAccepted(
      { contents: [user(), callTurn({ signature: signed }, {}), responseTurn(undefined, undefined)] },
      model,
    );
    // Steps before the latest user text are an earlier turn, not checked.
    await expectAccepted(
      {
        contents: [
          user(),
          callTurn({}),
          responseTurn(undefined),
          { role: "model", parts: [{ text: "18C." }] },
          user("Thanks"),
        ],
      },
      model,
    );
    // The documented bypass value passes, and Gemini 2.5 needs no signature.
    await expectAccepted(
      {
        contents: [
          user(),
          callTurn({ signature: "skip_thought_signature_validator" }),
          responseTurn(undefined),
        ],
      },
      model,
    );
    await expectAccepted({ contents: [user(), callTurn({}), responseTurn(undefined)] });
  });
});

describe("gemini request rules: tools", () => {
  it("refuses JSON-Schema keywords Gemini's Schema lacks in `parameters`, every one at once", async () => {
    const parameters = {
      type: "object",
      additionalProperties: false,
      properties: { unit: { type: "string", const: "C" }, cities: { type: "array", items: { $ref: "#/x" } } },
    };
    const violations = [
      ["additionalProperties", "tools[0].function_declarations[0].parameters"],
      ["const", "tools[0].function_declarations[0].parameters.properties[0].value"],
      ["$ref", "tools[0].function_declarations[0].parameters.properties[1].value.items"],
    ].map(([name, field]) => ({
      field,
      description: `Invalid JSON payload received. Unknown name "${name}" at '${field}': Cannot find field.`,
    }));
    await expectRejected(
      { contents: [user()], ...declaration({ parameters }) },
      violations.map((v) => v.description).join("\n"),
      "gemini-2.5-flash",
      [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations }],
    );
    // Plain JSON Schema is what parametersJsonSchema is for.
    await expectAccepted({ contents: [user()], ...declaration({ parametersJsonSchema: parameters }) });
  });

  it("refuses unknown declaration fields", async () => {
    const field = "tools[0].function_declarations[0]";
    const description = `Invalid JSON payload received. Unknown name "strict" at '${field}': Cannot find field.`;
    await expectRejected(
      { contents: [user()], ...declaration({ strict: true, parametersJsonSchema: { type: "object" } }) },
      description,
      "gemini-2.5-flash",
      [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field, description }] }],
    );
  });

  it("refuses parameters given two ways, and a calling config without declarations", async () => {
    await expectRejected(
      {
        contents: [user()],
        ...declaration({ parameters: { type: "object" }, parametersJsonSchema: { type: "object" } }),
      },
      "* GenerateContentRequest.tools[0].function_declarations[0]: parameters and parameters_json_schema are mutually exclusive; set only one of them.\n",
    );
    await expectRejected(
      {
        contents: [user()],
        tools: [{ googleSearch: {} }],
        toolConfig: { functionCallingConfig: { mode: "AUTO" } },
      },
      "Function calling config is set without function_declarations.",
    );
    await expectAccepted({
      contents: [user()],
      ...declaration({ parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } } }),
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
    });
  });
});
