import type { ExtensionErrorKind } from "./events.js";
import {
  type FinalMetaDefinition,
  type RegisteredFinalMeta,
  validateFinalMeta,
} from "./final-meta.js";
import type { ExtensionRecord } from "./registry.js";

/** Reports a bad or colliding registration against the extension that made it. */
type ReportRegistration = (
  record: ExtensionRecord,
  kind: ExtensionErrorKind,
  error: string,
) => void;

/**
 * The metadata blocks extensions require beside the final report: validation and
 * first-wins names. Internal to the runner.
 */
export class FinalMetaRegistry {
  private readonly blocks = new Map<string, RegisteredFinalMeta & { record: ExtensionRecord }>();

  constructor(private readonly report: ReportRegistration) {}

  /** Registers a block; a malformed definition or a taken name is reported and ignored. */
  add(record: ExtensionRecord, definition: FinalMetaDefinition): void {
    const checked = validateFinalMeta(definition);
    if (!checked.ok) {
      this.report(record, "invalid_registration", checked.error);
      return;
    }
    const existing = this.blocks.get(definition.name);
    if (existing) {
      this.report(
        record,
        "collision",
        `final meta ${definition.name} is already required by ${existing.extensionName}; this one is ignored`,
      );
      return;
    }
    this.blocks.set(definition.name, {
      name: definition.name,
      description: definition.description,
      schema: definition.schema,
      jsonSchema: checked.jsonSchema,
      extensionName: record.name,
      extensionPath: record.path,
      record,
    });
  }

  /** The blocks of active extensions, in registration order. */
  list(): RegisteredFinalMeta[] {
    return [...this.blocks.values()]
      .filter((block) => block.record.state === "active")
      .map(({ record: _record, ...block }) => block);
  }
}
