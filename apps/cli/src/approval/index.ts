export { ApprovalError, type ApprovalErrorCode } from "./approval-error.js";
export {
  type ApprovalAsker,
  ApprovalGate,
  type ApprovalGateOptions,
  describeCall,
  ToolCallDeniedError,
} from "./approval-gate.js";
export {
  type ApprovalRequest,
  approvalVerdict,
  type PolicyVerdict,
  ruleAllows,
  ruleFor,
} from "./approval-policy.js";
export {
  type AllowRule,
  APPROVAL_ENTRY_TYPE,
  type ApprovalAnswer,
  type ApprovalFile,
  type ApprovalMode,
  type ApprovalRecord,
  allowRuleSchema,
  approvalFileSchema,
  approvalModeSchema,
  approvalRecordSchema,
} from "./approval-schema.js";
export {
  APPROVAL_FILE_NAME,
  approvalFilePath,
  projectAllowRules,
  readApprovalFile,
  rememberAllowRule,
} from "./approval-store.js";
export {
  approvalQuestion,
  askOnTerminal,
  createApprovalGate,
  recordApprovalsIn,
  resolveApprovalMode,
} from "./cli-approval.js";
