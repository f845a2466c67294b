import { ArborError, arborErrorGuard } from "@arbor/session-store";

/**
 * The server cannot start as configured: a bad option, environment variable, config file
 * or agent. Names where (`file`), what (`field`) and why (`reason`).
 */
export class ServerConfigError extends ArborError {
  override readonly name = "ServerConfigError";
  declare readonly code: "invalid_server_config";

  /**
   * @param source - the config file, `--option` or environment variable at fault
   * @param field - the dotted field inside it (`agents[0].models`), or `(file)`
   * @param reason - why it is wrong
   */
  constructor(
    readonly source: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super("invalid_server_config", `${source}: ${field}: ${reason}`);
  }

  /** Tells whether a value is a ServerConfigError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<ServerConfigError>(
    "@arbor/server:ServerConfigError",
  );
}
