import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { modelEventSchema, modelInfoSchema } from "@arbor/orchestration";
import { z } from "zod";

/** The current cassette file version. */
export const CASSETTE_VERSION = 1;

/** One recorded call: the request, the model, and every event with its offset in ms. */
export const cassetteSchema = z.object({
  version: z.literal(CASSETTE_VERSION),
  key: z.string(),
  model: modelInfoSchema,
  recordedAt: z.string(),
  /** The request as sent, without its abort signal. */
  request: z.unknown(),
  events: z.array(z.object({ atMs: z.number().nonnegative(), event: modelEventSchema })),
});
/** One recorded call: the request, the model, and every event with its offset in ms. */
export type Cassette = z.infer<typeof cassetteSchema>;

/** The file a cassette with `key` lives in. */
export function cassettePath(dir: string, key: string): string {
  return join(dir, `${key}.json`);
}

/** Writes a cassette atomically (temporary file, then rename). */
export async function writeCassette(dir: string, cassette: Cassette): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = cassettePath(dir, cassette.key);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(cassette, null, 2)}\n`);
  await rename(temporary, path);
  return path;
}

/**
 * Reads and validates a cassette.
 *
 * @returns the cassette, or `undefined` when no file exists for the key.
 * @throws Error when the file exists but is not a valid cassette.
 */
export async function readCassette(dir: string, key: string): Promise<Cassette | undefined> {
  const path = cassettePath(dir, key);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `cassette ${path} is not JSON: ${(error as Error).message}; delete it and record again`,
    );
  }
  const parsed = cassetteSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `cassette ${path} is not a valid v${CASSETTE_VERSION} cassette: ${parsed.error.message}`,
    );
  }
  return parsed.data;
}
