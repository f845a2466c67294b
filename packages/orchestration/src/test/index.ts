// `@arbor/orchestration/test`: the test kits of the layers below, for apps' scripted runs
// (demo, harness) and tests. Listed by name; add a name only when an app needs it.

/** A scripted extension UI; re-exported so apps need not depend on `@arbor/extensions-api`. */
export { ScriptedExtensionUI } from "@arbor/extensions-api/test";
/** Scripted model and fake provider servers; re-exported so apps need not depend on `@arbor/providers`. */
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
  SCRIPTED_MODEL_INFO,
  ScriptedModel,
  type ScriptedResponseInput,
  scriptedResponseSchema,
  type WireFault,
  type WireStep,
} from "@arbor/providers/test";
