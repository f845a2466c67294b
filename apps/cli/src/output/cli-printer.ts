import { redactSecrets } from "@arbor/orchestration";
import type { KnownSecrets } from "./known-secrets.js";
import { redactKnownSecrets } from "./redact-secrets.js";
import { terminalSafe, terminalSafeJson } from "./terminal-text.js";

/** A stream the printer writes to. */
export interface PrintTarget {
  write(text: string): unknown;
}

/**
 * The one way `arbor`'s commands print: every text has its secrets redacted and goes
 * through {@link terminalSafe} (text from sessions, models and providers cannot drive the
 * terminal). Errors and `--json` output use `redactSecrets` of `@arbor/providers` (the
 * configured keys verbatim, and anything key-shaped); the answer on stdout loses the
 * configured keys only, so key-shaped examples in it survive. Newlines and tabs are kept.
 */
export class CliPrinter {
  constructor(
    private readonly io: { stdout: PrintTarget; stderr: PrintTarget },
    private readonly secrets: KnownSecrets,
  ) {}

  /** Writes to stdout (answers, listings): configured keys redacted, controls escaped. */
  out(text: string): void {
    const redacted = redactKnownSecrets(text, this.secrets.values());
    this.io.stdout.write(terminalSafe(redacted, { multiline: true }));
  }

  /** Writes to stderr (errors, notices): every secret redacted, controls escaped. */
  err(text: string): void {
    const redacted = redactSecrets(text, this.secrets.values());
    this.io.stderr.write(terminalSafe(redacted, { multiline: true }));
  }

  /** Writes a value as JSON on one line to stdout (`stream-json`), secrets redacted, controls escaped. */
  jsonLine(value: unknown): void {
    this.io.stdout.write(`${redactSecrets(terminalSafeJson(value, 0), this.secrets.values())}\n`);
  }

  /** Writes a value as indented JSON to stdout, with every secret redacted and controls escaped. */
  json(value: unknown): void {
    this.io.stdout.write(`${redactSecrets(terminalSafeJson(value), this.secrets.values())}\n`);
  }
}
