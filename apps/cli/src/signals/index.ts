export {
  onTerminationSignal,
  type SignalSource,
  signalExitCode,
  TERMINATION_SIGNALS,
  type TerminationSignal,
} from "./termination-signals.js";
export {
  retryUnansweredPrompt,
  type UnansweredPrompt,
  unansweredPrompt,
} from "./unanswered-prompt.js";
