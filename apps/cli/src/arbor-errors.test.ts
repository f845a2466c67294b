import { ArborError } from "@arbor/session-store";
import { WorkspaceToolError } from "@arbor/workspace";
import { describe, expect, it } from "vitest";
import { ApprovalError } from "./approval/approval-error.js";
import { ToolCallDeniedError } from "./approval/approval-gate.js";
import { CliUsageError } from "./args.js";
import { CliError } from "./cli-error.js";
import { TrustFileError } from "./trust/trust-file-error.js";

/** One sample of every error class of the app. */
const samples: Array<[{ name: string; isInstance(value: unknown): boolean }, Error]> = [
  [WorkspaceToolError, new WorkspaceToolError("not_found", "no such file")],
  [ApprovalError, new ApprovalError("invalid_approval_mode", "no such mode")],
  [ToolCallDeniedError, new ToolCallDeniedError("declined", "the user said no")],
  [CliUsageError, new CliUsageError("unknown option --x")],
  [CliError, new CliError("failed", { hint: "try again" })],
  [TrustFileError, new TrustFileError("trust_file_io", "/t.json", "unreadable")],
];

describe("the CLI's errors", () => {
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
