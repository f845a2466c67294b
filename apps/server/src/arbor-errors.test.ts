import { ArborError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { KeyFileError } from "./auth/file-api-key-store.js";
import { StreamRunError } from "./client/stream-run-error.js";
import { ServerConfigError } from "./config/server-config-error.js";
import { ApiError } from "./errors/api-error.js";
import { RunLeaseLostError } from "./runs/postgres/run-lease-lost-error.js";

/** One sample of every error class of the server. */
const samples: Array<[{ name: string; isInstance(value: unknown): boolean }, Error]> = [
  [KeyFileError, new KeyFileError("/keys.json", "not JSON")],
  [ServerConfigError, new ServerConfigError("--port", "(value)", "not a number")],
  [ApiError, new ApiError(404, "not_found", "no such session")],
  [RunLeaseLostError, new RunLeaseLostError("run-1", 2)],
  [StreamRunError, new StreamRunError("sequence_gap", "event 3 after 1", { seq: 3 })],
];

describe("the server's errors", () => {
  it("extend ArborError with a stable code, their class's name and a guard of their own", () => {
    for (const [type, error] of samples) {
      expect(error, type.name).toBeInstanceOf(ArborError);
      expect(error, type.name).not.toBeInstanceOf(TypeError);
      expect(error, type.name).not.toBeInstanceOf(RangeError);
      expect((error as ArborError).code, type.name).toMatch(/^[a-z_]+$/);
      expect(error.name).toBe(type.name);
      expect(ArborError.isInstance(error), type.name).toBe(true);
      for (const [other] of samples) expect(other.isInstance(error)).toBe(other === type);
    }
  });
});
