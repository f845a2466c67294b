import { describe, expect, it } from "vitest";
import { MIN_SHORT_ID_LENGTH, shortIds } from "./short-ids.js";

/** Each short id is a prefix of its id and of no other id of the list. */
function expectUnique(ids: readonly string[], short: Map<string, string>): void {
  for (const id of ids) {
    const prefix = short.get(id) as string;
    expect(id.startsWith(prefix)).toBe(true);
    expect(ids.filter((other) => other.startsWith(prefix))).toEqual([id]);
  }
}

describe("shortIds", () => {
  it("uses 8 characters when they are unique", () => {
    const ids = ["0193a7f2-1111-7000-8000-000000000001", "0293a7f2-1111-7000-8000-000000000002"];
    const short = shortIds(ids);
    expect([...short.values()].map((value) => value.length)).toEqual([8, 8]);
    expectUnique(ids, short);
  });

  it("grows a prefix past a shared start, only for the ids that share it", () => {
    const ids = [
      "0193a7f2-1111-7000-8000-aaaaaaaaaaaa",
      "0193a7f2-1112-7000-8000-bbbbbbbbbbbb",
      "0193a7f2-2222-7000-8000-cccccccccccc",
      "ffff0000-0000-7000-8000-dddddddddddd",
    ];
    const short = shortIds(ids);
    expect(short.get(ids[0] as string)).toBe("0193a7f2-1111");
    expect(short.get(ids[1] as string)).toBe("0193a7f2-1112");
    expect(short.get(ids[2] as string)).toBe("0193a7f2-2");
    expect(short.get(ids[3] as string)).toBe("ffff0000");
    expectUnique(ids, short);
  });

  it("stays unique for many ids made alike (time-ordered ids of one second)", () => {
    const ids = Array.from(
      { length: 300 },
      (_, index) => `0193a7f2-${index.toString(16).padStart(4, "0")}-7000-8000-${index}`,
    );
    const short = shortIds(ids);
    expectUnique(ids, short);
    for (const value of short.values())
      expect(value.length).toBeGreaterThanOrEqual(MIN_SHORT_ID_LENGTH);
  });

  it("keeps short ids, an id that prefixes another and duplicates whole", () => {
    const short = shortIds(["abc", "abcdefgh", "abcdefghij", "abc"]);
    expect(short.get("abc")).toBe("abc");
    expect(short.get("abcdefgh")).toBe("abcdefgh");
    expect(short.get("abcdefghij")).toBe("abcdefghi");
  });
});
