// @ollie/ninep/testing: tools for testing FileServers and clients with real 9P bytes.

export { parseMessage } from "./testing/parse-message.js";
export { runTranscript, TranscriptError, type TranscriptOptions } from "./testing/transcript.js";
