// The fake provider servers live in @arbor/providers/test; re-exported so code written
// against the harness keeps working.
export {
  anthropicFault,
  encodeSseEvent,
  type FakeApi,
  FakeProviderServer,
  type FakeProviderServerOptions,
  openaiFault,
  planWire,
  type RecordedRequest,
  retryAfterHeaders,
  type WireFault,
  type WireStep,
} from "@arbor/orchestration/test";
export * from "./agent-scenario/index.js";
export * from "./cassette/index.js";
export { type CliIo, HELP, main } from "./cli/main.js";
export * from "./orchestration-scenario/index.js";
export * from "./scenario/index.js";
