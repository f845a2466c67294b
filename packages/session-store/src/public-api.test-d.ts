/*
 * Pins the public API of @arbor/session-store: the turn runner, the apps, html-export and
 * teams that install this package alone rely on it. The pins are exact, so additions fail
 * too, on purpose: update the pin, and say in the changeset whether the change is additive
 * (minor) or breaking (major).
 */
import { describe, expectTypeOf, it } from "vitest";
import type * as api from "./index.js";
import type {
  AgentMessage,
  CreateSessionOptions,
  Durability,
  IdSet,
  ListSessionsOptions,
  LogProblem,
  ModelRef,
  OpenSessionFileOptions,
  OpenStorageOptions,
  ParsedLog,
  Session,
  SessionContext,
  SessionEntry,
  SessionFileProblem,
  SessionHeader,
  SessionInfo,
  SessionStorage,
  SessionTreeNode,
  StoredContent,
  StoredLog,
  TitleGenerator,
} from "./index.js";

describe("runtime exports", () => {
  it("are exactly these names", () => {
    expectTypeOf<keyof typeof api>().toEqualTypeOf<
      | "ArborError"
      | "arborErrorGuard"
      | "CURRENT_SESSION_VERSION"
      | "DEFAULT_FILE_TOOL_NAMES"
      | "DEFAULT_TITLE_LENGTH"
      | "DEFAULT_TOOL_RESULT_MAX_CHARS"
      | "DuplicateEntryIdError"
      | "EntryNotFoundError"
      | "InvalidEntryError"
      | "SessionFileChangedError"
      | "SessionIoError"
      | "FileSessionStorage"
      | "FileSessionStore"
      | "InvalidStoreQueryError"
      | "MemorySessionStore"
      | "SessionNotFoundError"
      | "stampArborError"
      | "activityTimeFromLineEnd"
      | "activityTimeOf"
      | "isSpareCopyId"
      | "SPARE_COPY_SUFFIX"
      | "spareCopyId"
      | "withSharedFileLock"
      | "storedText"
      | "checkTenant"
      | "decodeCursor"
      | "encodeCursor"
      | "forkLines"
      | "importableLines"
      | "listCursorSchema"
      | "parseListQuery"
      | "sessionListQuerySchema"
      | "summarizeSession"
      | "tenantSchema"
      | "IMAGE_TOKEN_ESTIMATE"
      | "MemorySessionStorage"
      | "SESSION_INDEX_FILE"
      | "Session"
      | "SessionFileError"
      | "SessionLockedError"
      | "SessionReadOnlyError"
      | "SessionStoreError"
      | "SessionTree"
      | "agentMessageSchema"
      | "branchSummaryEntrySchema"
      | "buildContextFromPath"
      | "collectAbandonedBranch"
      | "collectFileOperations"
      | "compactionEntrySchema"
      | "contentBlockSchema"
      | "createSession"
      | "customEntrySchema"
      | "customMessageEntrySchema"
      | "defaultSessionDir"
      | "deleteSession"
      | "entryBaseSchema"
      | "estimateContextTokens"
      | "estimateEntryTokens"
      | "estimateMessageTokens"
      | "estimateSessionTokens"
      | "estimateTextTokens"
      | "findCutCandidates"
      | "findCutPoint"
      | "firstUserText"
      | "generateEntryId"
      | "generateSessionId"
      | "injectedRuleSchema"
      | "isEntryOfType"
      | "knownEntrySchemas"
      | "labelEntrySchema"
      | "leafEntrySchema"
      | "listSessions"
      | "messageEntrySchema"
      | "messageText"
      | "migrateToCurrent"
      | "migrateV1ToV2"
      | "migrateV2ToV3"
      | "modelChangeEntrySchema"
      | "openSessionFile"
      | "parseSessionLog"
      | "planCompaction"
      | "reportedUsageTokens"
      | "safeParseJson"
      | "serializeTranscript"
      | "sessionFileName"
      | "sessionHeaderSchema"
      | "sessionInfoEntrySchema"
      | "thinkingLevelChangeEntrySchema"
      | "titleFromText"
      | "toContextMessage"
      | "truncateText"
      | "ttsrInjectionEntrySchema"
      | "validateEntry"
      // Arbor's own custom entries (arbor-entries/)
      | "AGENT_FILE_CUSTOM_TYPE"
      | "ANCESTRY_CUSTOM_TYPE"
      | "ANSWER_FEEDBACK_CUSTOM_TYPE"
      | "APPROVAL_CUSTOM_TYPE"
      | "CHECKPOINT_CUSTOM_TYPE"
      | "checkpointEntryDataSchema"
      | "checkpointSkippedFileSchema"
      | "MAX_CHECKPOINT_PATHS"
      | "CHILD_SESSION_CUSTOM_TYPE"
      | "CONTEXT_GUARD_CUSTOM_TYPE"
      | "CONTEXT_SWITCH_CUSTOM_TYPE"
      | "FAILOVER_CUSTOM_TYPE"
      | "FINAL_ANSWER_CUSTOM_TYPE"
      | "FINAL_TURN_CUSTOM_TYPE"
      | "SYSTEM_PROMPT_CUSTOM_TYPE"
      | "TTSR_INTERRUPT_CUSTOM_TYPE"
      | "agentFileEntrySchema"
      | "allowRuleSchema"
      | "ancestryEntrySchema"
      | "answerFeedbackDetailsSchema"
      | "approvalRecordSchema"
      | "arborEntrySchemas"
      | "childSessionEntrySchema"
      | "contextGuardRecordSchema"
      | "contextSwitchDetailsSchema"
      | "failoverRecordSchema"
      | "finalAnswerDetailsSchema"
      | "finalTurnDetailsSchema"
      | "isArborEntry"
      | "readArborEntry"
      | "systemPromptRecordSchema"
      | "ttsrInterruptDetailsSchema"
    >();
  });
});

describe("Arbor's custom entries", () => {
  it("read a payload as its type's data, or undefined", () => {
    expectTypeOf<typeof api.readArborEntry<"arbor.orchestration.child">>().toEqualTypeOf<
      (entry: unknown, type: "arbor.orchestration.child") => api.ChildSessionEntry | undefined
    >();
    expectTypeOf<api.ArborEntryType>().toEqualTypeOf<keyof typeof api.arborEntrySchemas>();
  });
});

describe("entry points", () => {
  it("open and create sessions, list and delete them", () => {
    expectTypeOf<typeof api.openSessionFile>().toEqualTypeOf<
      (path: string, options?: OpenSessionFileOptions) => Promise<Session>
    >();
    expectTypeOf<typeof api.createSession>().toEqualTypeOf<
      (options: CreateSessionOptions) => Promise<Session>
    >();
    expectTypeOf<typeof api.Session.open>().toEqualTypeOf<
      (storage: SessionStorage, options?: OpenStorageOptions) => Promise<Session>
    >();
    expectTypeOf<typeof api.listSessions>().toEqualTypeOf<
      (dir: string, options?: ListSessionsOptions) => Promise<SessionInfo[]>
    >();
    expectTypeOf<typeof api.deleteSession>().toEqualTypeOf<
      (path: string, options?: api.DeleteSessionOptions) => Promise<void>
    >();
    expectTypeOf<typeof api.defaultSessionDir>().toEqualTypeOf<
      (home: string, cwd: string) => string
    >();
  });

  it("take these options", () => {
    expectTypeOf<keyof OpenSessionFileOptions>().toEqualTypeOf<
      | "now"
      | "generateId"
      | "titleLength"
      | "readOnly"
      | "create"
      | "cwd"
      | "durability"
      | "staleLockPolicy"
      | "keepListingIndex"
      | "listingIndexDelayMs"
    >();
    expectTypeOf<keyof CreateSessionOptions>().toEqualTypeOf<
      | "now"
      | "generateId"
      | "titleLength"
      | "dir"
      | "cwd"
      | "durability"
      | "parentSession"
      | "keepListingIndex"
      | "listingIndexDelayMs"
    >();
    expectTypeOf<keyof OpenStorageOptions>().toEqualTypeOf<
      | "now"
      | "generateId"
      | "titleLength"
      | "readOnly"
      | "create"
      | "cwd"
      | "sessionId"
      | "parentSession"
    >();
    expectTypeOf<OpenSessionFileOptions["generateId"]>().toEqualTypeOf<
      ((taken: IdSet) => string) | undefined
    >();
    expectTypeOf<Durability>().toEqualTypeOf<"always" | "batch" | "never">();
  });
});

describe("Session", () => {
  it("has exactly these public members", () => {
    expectTypeOf<keyof Session>().toEqualTypeOf<
      | "readOnly"
      | "id"
      | "location"
      | "problems"
      | "getHeader"
      | "getLeafId"
      | "getLeafEntry"
      | "getEntry"
      | "getChildren"
      | "getBranch"
      | "getTree"
      | "getLabel"
      | "getEntries"
      | "getSessionName"
      | "buildSessionContext"
      | "verify"
      | "appendMessage"
      | "appendThinkingLevelChange"
      | "appendModelChange"
      | "appendCompaction"
      | "appendEntries"
      | "appendCustomEntry"
      | "appendCustomMessageEntry"
      | "appendLabelChange"
      | "appendSessionInfo"
      | "appendTtsrInjection"
      | "branch"
      | "resetLeaf"
      | "branchWithSummary"
      | "getTitle"
      | "setTitle"
      | "clearTitle"
      | "regenerateTitle"
      | "fork"
      | "flush"
      | "close"
      | "delete"
    >();
  });

  it("reads with pi's names and shapes", () => {
    expectTypeOf<Session["getLeafId"]>().toEqualTypeOf<() => string | null>();
    expectTypeOf<Session["getLeafEntry"]>().toEqualTypeOf<() => SessionEntry | undefined>();
    expectTypeOf<Session["getEntry"]>().toEqualTypeOf<(id: string) => SessionEntry | undefined>();
    expectTypeOf<Session["getChildren"]>().toEqualTypeOf<(parentId: string) => SessionEntry[]>();
    expectTypeOf<Session["getBranch"]>().toEqualTypeOf<
      (fromId?: string | null) => SessionEntry[]
    >();
    expectTypeOf<Session["getTree"]>().toEqualTypeOf<() => SessionTreeNode[]>();
    expectTypeOf<Session["getLabel"]>().toEqualTypeOf<(id: string) => string | undefined>();
    expectTypeOf<Session["getHeader"]>().toEqualTypeOf<() => SessionHeader>();
    expectTypeOf<Session["buildSessionContext"]>().toEqualTypeOf<
      (leafId?: string | null) => SessionContext
    >();
    expectTypeOf<SessionContext>().toEqualTypeOf<{
      messages: AgentMessage[];
      thinkingLevel: string;
      model: ModelRef | null;
    }>();
    expectTypeOf<SessionTreeNode>().toEqualTypeOf<{
      readonly entry: SessionEntry;
      readonly children: SessionTreeNode[];
      readonly label?: string;
      readonly labelTimestamp?: string;
    }>();
    expectTypeOf<Session["problems"]>().toEqualTypeOf<readonly LogProblem[]>();
    expectTypeOf<LogProblem["kind"]>().toEqualTypeOf<
      | "invalid_json"
      | "invalid_entry"
      | "torn_tail"
      | "duplicate_id"
      | "missing_parent"
      | "parent_cycle"
    >();
  });

  it("appends, navigates and titles, resolving with ids", () => {
    expectTypeOf<Session["appendMessage"]>().toEqualTypeOf<
      (message: AgentMessage) => Promise<string>
    >();
    expectTypeOf<Session["appendCompaction"]>().toEqualTypeOf<
      (
        summary: string,
        firstKeptEntryId: string,
        tokensBefore: number,
        details?: unknown,
        fromHook?: boolean,
      ) => Promise<string>
    >();
    expectTypeOf<Session["appendLabelChange"]>().toEqualTypeOf<
      (targetId: string, label?: string) => Promise<string>
    >();
    expectTypeOf<Session["branch"]>().toEqualTypeOf<(entryId: string) => Promise<void>>();
    expectTypeOf<Session["resetLeaf"]>().toEqualTypeOf<() => Promise<void>>();
    expectTypeOf<Session["branchWithSummary"]>().toEqualTypeOf<
      (targetId: string | null, summary: string, details?: unknown) => Promise<string>
    >();
    expectTypeOf<Session["fork"]>().toEqualTypeOf<
      (leafId: string, options?: { storage?: SessionStorage }) => Promise<Session>
    >();
    expectTypeOf<Session["regenerateTitle"]>().toEqualTypeOf<
      (
        generator: TitleGenerator,
        signal?: AbortSignal,
      ) => Promise<{ title: string | undefined; error?: unknown }>
    >();
  });
});

describe("listing", () => {
  it("tells these facts about each session", () => {
    expectTypeOf<SessionInfo>().toEqualTypeOf<{
      id: string;
      path: string;
      title: string | undefined;
      name: string | undefined;
      cwd: string;
      created: Date;
      modified: Date;
      messageCount: number;
      firstUserMessage: string | undefined;
      parentSession: string | undefined;
    }>();
  });
});

describe("storage backends", () => {
  it("share this async interface", () => {
    expectTypeOf<keyof SessionStorage>().toEqualTypeOf<
      | "location"
      | "read"
      | "lock"
      | "append"
      | "replace"
      | "hold"
      | "publish"
      | "resume"
      | "sibling"
      | "close"
      | "delete"
    >();
    expectTypeOf<SessionStorage["read"]>().toEqualTypeOf<() => Promise<StoredLog | undefined>>();
    expectTypeOf<StoredLog["content"]>().toEqualTypeOf<StoredContent>();
    expectTypeOf<StoredContent>().toEqualTypeOf<Uint8Array | string | readonly string[]>();
    expectTypeOf<SessionStorage["append"]>().toEqualTypeOf<
      (lines: readonly string[]) => Promise<void>
    >();
    expectTypeOf<api.FileSessionStorage>().toMatchTypeOf<SessionStorage>();
    expectTypeOf<api.MemorySessionStorage>().toMatchTypeOf<SessionStorage>();
  });

  it("parse logs into a header, records and problems", () => {
    expectTypeOf<keyof ParsedLog>().toEqualTypeOf<
      "header" | "sourceVersion" | "records" | "problems" | "tornTail" | "needsNewline"
    >();
    expectTypeOf<ParsedLog["records"][number]["id"]>().toEqualTypeOf<string>();
    expectTypeOf<ParsedLog["records"][number]["parentId"]>().toEqualTypeOf<string | null>();
  });
});

describe("errors", () => {
  it("carry stable codes and the facts to act on", () => {
    expectTypeOf<api.SessionLockedError["holderPid"]>().toEqualTypeOf<number>();
    expectTypeOf<api.SessionFileError["problem"]>().toEqualTypeOf<SessionFileProblem>();
    expectTypeOf<api.EntryNotFoundError["entryId"]>().toEqualTypeOf<string>();
    expectTypeOf<api.SessionStoreError["code"]>().toEqualTypeOf<string>();
    expectTypeOf<typeof api.SessionLockedError.isInstance>().toEqualTypeOf<
      (error: unknown) => error is api.SessionLockedError
    >();
  });
});
