import type { EntryIssue } from "../errors/index.js";

/**
 * Finds the first part of a value that would not come back the same from
 * `JSON.parse(JSON.stringify(value))`: a BigInt, a function, a symbol, `undefined` or a
 * hole in an array, a number that is not finite, an object that is not plain (a Map, a
 * Date, a class instance) or one with a `toJSON` method, and a cycle. Object properties
 * whose value is `undefined` are allowed: JSON leaves them out, and an absent field reads
 * as `undefined` again.
 * @param path - where `value` sits, for the issue's `field`
 * @returns undefined when the value survives JSON unchanged, else where and why it does not
 */
export function findJsonIssue(value: unknown, path = ""): EntryIssue | undefined {
  let found: FoundIssue | undefined;
  try {
    found = walk(value, new Set());
  } catch (error) {
    if (error instanceof RangeError)
      return { field: path, reason: "is nested too deeply for JSON" };
    throw error;
  }
  if (!found) return undefined;
  // The path is put together only for a value that fails: appends check every entry.
  const field = [path, ...found.keys.reverse()].filter((key) => key !== "").join(".");
  return { field, reason: found.reason };
}

/** An issue found by {@link walk}; `keys` run from the issue up to the walked value. */
interface FoundIssue {
  keys: string[];
  reason: string;
}

const issue = (reason: string): FoundIssue => ({ keys: [], reason });

function walk(value: unknown, ancestors: Set<object>): FoundIssue | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value)
        ? undefined
        : issue(`is ${value}, which JSON cannot hold (it would read back as null)`);
    case "bigint":
      return issue("is a BigInt, which JSON cannot hold; store it as a string");
    case "function":
      return issue("is a function, which JSON cannot hold");
    case "symbol":
      return issue("is a symbol, which JSON cannot hold");
    case "undefined":
      return issue("is undefined, which JSON cannot hold here");
  }
  if (value === null) return undefined;
  const object = value as object;
  if (ancestors.has(object)) return issue("refers back to itself (a cycle)");
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        if (!(i in object)) {
          return {
            keys: [String(i)],
            reason: "is a hole in an array (it would read back as null)",
          };
        }
        const found = walk(object[i], ancestors);
        if (found) return within(found, String(i));
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (object as { constructor?: { name?: unknown } }).constructor?.name;
      return issue(
        `is ${typeof kind === "string" && kind ? `a ${kind}` : "not a plain object"}, which JSON would not give back as it is`,
      );
    }
    for (const key of Object.keys(object)) {
      const child = (object as Record<string, unknown>)[key];
      if (child === undefined) continue;
      if (key === "toJSON" && typeof child === "function") {
        return { keys: [key], reason: "is a toJSON method, which changes what JSON stores" };
      }
      const found = walk(child, ancestors);
      if (found) return within(found, key);
    }
    return undefined;
  } finally {
    ancestors.delete(object);
  }
}

function within(found: FoundIssue, key: string): FoundIssue {
  found.keys.push(key);
  return found;
}
