export {
  CASSETTE_VERSION,
  type Cassette,
  cassettePath,
  cassetteSchema,
  readCassette,
  writeCassette,
} from "./cassette.js";
export { CassetteNotFoundError } from "./cassette-not-found-error.js";
export {
  type RecordOptions,
  type ReplayOptions,
  recordModel,
  replayModel,
} from "./record-replay.js";
export { requestKey, stableStringify } from "./request-key.js";
