/*
 * Pins the runtime names and main signatures of `@arbor/session-store/import`, as
 * `public-api.test-d.ts` does for the package root: an addition or a change fails here first.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { Session } from "../session.js";
import type { SessionStore } from "../store/session-store.js";
import type * as api from "./index.js";
import type {
  ImportedLog,
  ImportSessionsOptions,
  ImportSummary,
  MarkdownExportOptions,
  StoreImportOptions,
  StoreImportResult,
} from "./index.js";

describe("@arbor/session-store/import", () => {
  it("exports exactly these runtime names", () => {
    expectTypeOf<keyof typeof api>().toEqualTypeOf<
      | "readClaudeCodeFile"
      | "readCodexFile"
      | "readOpencodeStorage"
      | "findOpencodeStorage"
      | "readOpencodeDatabase"
      | "opencodeDatabaseSessions"
      | "findOpencodeDatabase"
      | "DEFAULT_MAX_DATABASE_BYTES"
      | "detectSource"
      | "readSourceLines"
      | "SessionImportError"
      | "importSessions"
      | "defaultImportLocation"
      | "importIntoStore"
      | "importedLogText"
      | "importedSessionId"
      | "entryProvenanceSchema"
      | "importProvenanceSchema"
      | "importSourceSchema"
      | "RAW_LINE_CUSTOM_TYPE"
      | "exportJsonl"
      | "exportMarkdown"
    >();
  });

  it("reads, stores and exports with these signatures", () => {
    expectTypeOf<typeof api.readClaudeCodeFile>().returns.resolves.toEqualTypeOf<ImportedLog[]>();
    expectTypeOf<typeof api.readCodexFile>().returns.resolves.toEqualTypeOf<ImportedLog>();
    expectTypeOf<typeof api.readOpencodeStorage>().returns.resolves.toEqualTypeOf<ImportedLog[]>();
    expectTypeOf<typeof api.readOpencodeDatabase>().returns.resolves.toEqualTypeOf<ImportedLog[]>();
    expectTypeOf<typeof api.importSessions>().parameters.toEqualTypeOf<
      [string, ImportSessionsOptions]
    >();
    expectTypeOf<typeof api.importSessions>().returns.resolves.toEqualTypeOf<ImportSummary>();
    expectTypeOf<typeof api.importIntoStore>().parameters.toEqualTypeOf<
      [SessionStore, ImportedLog, (StoreImportOptions | undefined)?]
    >();
    expectTypeOf<typeof api.importIntoStore>().returns.resolves.toEqualTypeOf<StoreImportResult>();
    expectTypeOf<Session>().toExtend<Parameters<typeof api.exportMarkdown>[0]>();
    expectTypeOf<Session>().toExtend<Parameters<typeof api.exportJsonl>[0]>();
    expectTypeOf<typeof api.exportMarkdown>().returns.toEqualTypeOf<string>();
    expectTypeOf<MarkdownExportOptions>().toEqualTypeOf<{
      allBranches?: boolean;
      leafId?: string;
    }>();
  });
});
