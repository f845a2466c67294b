import { arborMarkerGuard } from "../arbor-marker.js";
import { ProvidersError } from "../errors.js";

/** A scripted model was called more often than it had answers for. */
export class ScriptExhaustedError extends ProvidersError {
  /** How many answers were scripted. */
  readonly scripted: number;

  constructor(scripted: number, call: number) {
    super(
      "script_exhausted",
      `scripted model got call #${call} but only ${scripted} response(s) were scripted; add a response to the script or find the extra call`,
    );
    this.name = "ScriptExhaustedError";
    this.scripted = scripted;
  }

  /** True for a {@link ScriptExhaustedError} from any copy of this package. */
  static override readonly isInstance = arborMarkerGuard<ScriptExhaustedError>(
    "@arbor/providers:ScriptExhaustedError",
  );
}
