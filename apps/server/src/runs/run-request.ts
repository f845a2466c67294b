import type { ImagePart } from "@arbor/orchestration";

/** What to do when the session already has a run. */
export type IfBusy = "reject" | "enqueue" | "interrupt";

/** A request to start a run. */
export interface StartRunRequest {
  tenantId: string;
  sessionId: string;
  agent: string;
  prompt: string;
  images?: readonly ImagePart[];
  ifBusy: IfBusy;
  /** An extension command to run instead of the prompt; text it returns is sent as the prompt. */
  command?: { name: string; args: string };
  /** Where the run sits among the runs of a request (its events' `ancestry`). */
  ancestry?: RunRequestAncestry;
  /** The entry the run answers after (the leaf is moved there first): a new branch of the tree. */
  fromEntry?: string;
}

/** The runs around a server run, as the client names them. */
export interface RunRequestAncestry {
  /** The run that asked for this one. */
  parentId?: string;
  /** The run the whole request started with. */
  originId?: string;
}
