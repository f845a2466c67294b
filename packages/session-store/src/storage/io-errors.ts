import { SessionFileError, SessionIoError, SessionStoreError } from "../errors/index.js";

/**
 * Turns a raw system error from the file backend into a typed `SessionStoreError` naming
 * the file: a directory or a FIFO becomes `SessionFileError` (`not_regular_file`), a full
 * disk, missing permission and other I/O failures `SessionIoError`. Errors that are already
 * typed, and ones that are not system errors, pass through.
 */
export function toStoreError(error: unknown, path: string, operation: string): unknown {
  if (SessionStoreError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string") return error;
  switch (code) {
    case "EISDIR":
      return new SessionFileError(path, "not_regular_file", "it is a directory");
    case "ENXIO":
      return new SessionFileError(path, "not_regular_file", "it is a FIFO or a device");
    case "ENOSPC":
    case "EDQUOT":
      return new SessionIoError(path, "disk_full", operation, code, { cause: error });
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new SessionIoError(path, "permission_denied", operation, code, { cause: error });
    case "ENOENT":
      return error;
    default:
      return new SessionIoError(path, "io_error", operation, code, { cause: error });
  }
}

/** What kind of file a `Stats` describes, for messages. */
export function fileKind(stats: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSymbolicLink(): boolean;
  isSocket(): boolean;
}): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isSocket()) return "a socket";
  return "a device or other special file";
}
