import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

/** What a snapshot's commit records. */
export interface CommitFields {
  tree: string;
  parent: string | undefined;
  message: string;
  /** Seconds since the epoch. */
  time: number;
}

/**
 * Writes a commit object straight into the store's object folder, as git writes a loose
 * object (`commit <size>\0<body>`, zlib-deflated, named by its sha-1), and returns its sha.
 * This saves a git run per checkpoint; git reads the object like any other. The store is
 * created by Arbor with the sha-1 object format, so the name is the sha-1.
 */
export async function writeCommitObject(gitDir: string, fields: CommitFields): Promise<string> {
  const person = `Arbor <checkpoints@arbor.invalid> ${fields.time} +0000`;
  const body = [
    `tree ${fields.tree}`,
    ...(fields.parent ? [`parent ${fields.parent}`] : []),
    `author ${person}`,
    `committer ${person}`,
    "",
    fields.message,
    "",
  ].join("\n");
  const bytes = Buffer.from(body, "utf8");
  const object = Buffer.concat([Buffer.from(`commit ${bytes.length}\0`), bytes]);
  const sha = createHash("sha1").update(object).digest("hex");
  const folder = join(gitDir, "objects", sha.slice(0, 2));
  const path = join(folder, sha.slice(2));
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `tmp_obj_${randomBytes(6).toString("hex")}`);
    await writeFile(temp, deflateSync(object), { mode: 0o444 });
    await rename(temp, path);
  }
  return sha;
}
