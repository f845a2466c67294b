import type pg from "pg";

/**
 * The character that starts an escape (U+E000, private use): it, U+0000 and lone
 * surrogates are stored as it followed by the UTF-16 code unit in four upper-case hex
 * digits. PostgreSQL refuses U+0000 in `text`, and the driver's UTF-8 encoding turns a lone
 * surrogate into U+FFFD; escaped, both are kept exactly.
 */
const ESCAPE = "\ue000";
// U+0000 is one of the characters escaped; spelled out so no control character is in the source.
const NUL = String.fromCharCode(0);
const NEEDS_ESCAPE = new RegExp(
  `[${NUL}\\ue000]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
);
const NEEDS_ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, "g");
const ESCAPED = /\ue000([0-9A-F]{4})/g;

/**
 * A string as PostgreSQL can hold it in `text` (and in `json`): U+0000, lone surrogates and
 * U+E000 escaped. Strings without them (nearly all) come back as they are.
 * @example escapeText("a\u0000b") // "a\ue0000000b"
 */
export function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(
    NEEDS_ESCAPE_ALL,
    (unit) => `${ESCAPE}${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

/** Restores what {@link escapeText} escaped. */
export function restoreText(text: string): string {
  if (!text.includes(ESCAPE)) return text;
  return text.replace(ESCAPED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Every string in a value (arrays and plain objects walked, iteratively) escaped or restored. */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === "string") return map(value) as T;
  if (value === null || typeof value !== "object") return value;
  const root: { value: unknown } = { value: copyShallow(value) };
  const stack: Array<Record<string, unknown> | unknown[]> = [root.value as Record<string, unknown>];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (typeof child === "string") node[key] = map(child);
      else if (child !== null && typeof child === "object" && isPlain(child)) {
        const copy = copyShallow(child);
        node[key] = copy;
        stack.push(copy as Record<string, unknown>);
      }
    }
  }
  return root.value as T;
}

function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function copyShallow(value: object): unknown {
  if (Array.isArray(value)) return [...value];
  return isPlain(value) ? { ...value } : value;
}

type QueryArgs = [unknown, unknown?, unknown?];

/** A query's arguments with every string value escaped (text, named config, callbacks kept). */
function escapeArgs(args: QueryArgs): QueryArgs {
  const [first, second, ...rest] = args;
  if (typeof first === "object" && first !== null && "text" in first) {
    const config = first as { values?: unknown[] };
    const escaped = config.values
      ? { ...config, values: mapStrings(config.values, escapeText) }
      : first;
    return [
      escaped,
      Array.isArray(second) ? mapStrings(second, escapeText) : second,
      ...rest,
    ] as QueryArgs;
  }
  return [
    first,
    Array.isArray(second) ? mapStrings(second, escapeText) : second,
    ...rest,
  ] as QueryArgs;
}

function restoreResult<R>(result: R): R {
  const rows = (result as { rows?: unknown[] } | undefined)?.rows;
  if (Array.isArray(rows)) {
    for (const [i, row] of rows.entries()) rows[i] = mapStrings(row, restoreText);
  }
  return result;
}

/** A `query` that escapes its values and restores its rows, calling the target's `query` of the moment. */
function wrapQuery(target: { query: unknown }): (...args: QueryArgs) => unknown {
  return (...args: QueryArgs) => {
    const query = target.query as (...a: QueryArgs) => unknown;
    const result = query.apply(target, escapeArgs(args));
    return result instanceof Promise ? result.then(restoreResult) : result;
  };
}

/** A client whose queries escape their string values and restore the strings of their rows. */
function losslessClient(client: pg.PoolClient): pg.PoolClient {
  const query = wrapQuery(client);
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "query") return query;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The pool as the store uses it: every string sent is escaped ({@link escapeText}) and every
 * string of a returned row restored, for queries on the pool and on the clients it hands
 * out. So PostgreSQL holds exactly what the file store holds: U+0000 and lone surrogates in
 * prompts, answers, titles, working directories, labels and tenant names included.
 */
export function losslessPool(pool: pg.Pool): pg.Pool {
  const query = wrapQuery(pool);
  const connect = async () => losslessClient(await pool.connect());
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === "query") return query;
      if (prop === "connect") return connect;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
