import { json } from "../mock-reply.js";
import {
  anthropicErrorBody,
  geminiErrorBody,
  ollamaErrorBody,
  openAiErrorBody,
} from "../wire/error-bodies.js";
import type { Rejection } from "./request-check.js";

// Each vendor's 400 for a request it refuses, in its own error dialect.

export function anthropicRejection(message: string): Rejection {
  return {
    ...json(400, anthropicErrorBody("invalid_request_error", message), { "request-id": "req_mock" }),
    message,
  };
}

export function openAiRejection(
  message: string,
  param: string | null,
  code: string | null = null,
): Rejection {
  return { ...json(400, openAiErrorBody(message, "invalid_request_error", param, code)), message };
}

export function geminiRejection(message: string, details: unknown[] = []): Rejection {
  return { ...json(400, geminiErrorBody(400, "INVALID_ARGUMENT", message, details)), message };
}

export function ollamaRejection(message: string): Rejection {
  return { ...json(400, ollamaErrorBody(message)), message };
}
