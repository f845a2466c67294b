import type { TtsrRuleInput } from "./rule.js";

/** Builds a rule for tests: only what the test cares about needs to be given. */
export function makeRule(overrides: Partial<TtsrRuleInput> & { name: string }): TtsrRuleInput {
  return {
    path: `/repo/.arbor/rules/${overrides.name}.md`,
    content: `Reminder for ${overrides.name}.`,
    condition: overrides.name,
    ...overrides,
  };
}
