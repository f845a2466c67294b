import { describe, expect, it } from "vitest";
import { ArborError, arborErrorGuard, stampArborError } from "./arbor-error.js";
import { SessionStoreError } from "./session-store-errors.js";

class ShelfFullError extends ArborError {
  static override readonly isInstance = arborErrorGuard<ShelfFullError>(
    "@arbor/example:ShelfFullError",
  );
  constructor(options?: ErrorOptions) {
    super("shelf_full", "the shelf is full; take a book off first", options);
  }
}

class TopShelfFullError extends ShelfFullError {
  static override readonly isInstance = arborErrorGuard<TopShelfFullError>(
    "@arbor/example:TopShelfFullError",
  );
}

class DoorLockedError extends ArborError {
  static override readonly isInstance = arborErrorGuard<DoorLockedError>(
    "@arbor/example:DoorLockedError",
  );
  constructor() {
    super("door_locked", "the door is locked");
  }
}

/** A second module instance of arbor-error.ts, as when two copies of the package are installed. */
async function secondCopy(): Promise<typeof import("./arbor-error.js")> {
  const copyPath = "./arbor-error.js?copy";
  return (await import(/* @vite-ignore */ copyPath)) as typeof import("./arbor-error.js");
}

describe("ArborError", () => {
  it("carries its code, its class's name, its message and its cause", () => {
    const cause = new Error("disk");
    const error = new ShelfFullError({ cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ArborError);
    expect(error).not.toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(RangeError);
    expect(error.code).toBe("shelf_full");
    expect(error.name).toBe("ShelfFullError");
    expect(error.message).toBe("the shelf is full; take a book off first");
    expect(error.cause).toBe(cause);
    expect(new ShelfFullError().cause).toBeUndefined();
    expect(new TopShelfFullError().name).toBe("TopShelfFullError");
    expect(String(new DoorLockedError())).toBe("DoorLockedError: the door is locked");
  });

  it("takes the name from the class marker, so a bundler's renaming does not show", () => {
    const Renamed = class ShelfFullError2 extends ArborError {
      static override readonly isInstance = arborErrorGuard<ArborError>("@arbor/example:ShelfFull");
    };
    expect(new Renamed("shelf_full", "full").name).toBe("ShelfFull");
  });

  it("keeps its marker out of the error's enumerable properties and its JSON", () => {
    const error = new ShelfFullError();
    expect(Object.getOwnPropertySymbols(error)).toHaveLength(1);
    expect(Object.keys(error)).toEqual(["code", "name"]);
    expect(JSON.stringify(error)).toBe('{"code":"shelf_full","name":"ShelfFullError"}');
  });

  it("answers isInstance for the class and its subclasses only", () => {
    const shelf = new ShelfFullError();
    const top = new TopShelfFullError();
    const door = new DoorLockedError();
    expect(ArborError.isInstance(shelf)).toBe(true);
    expect(ArborError.isInstance(door)).toBe(true);
    expect(ShelfFullError.isInstance(shelf)).toBe(true);
    expect(ShelfFullError.isInstance(top)).toBe(true);
    expect(TopShelfFullError.isInstance(top)).toBe(true);
    expect(TopShelfFullError.isInstance(shelf)).toBe(false);
    expect(ShelfFullError.isInstance(door)).toBe(false);
    expect(DoorLockedError.isInstance(shelf)).toBe(false);
    expect(SessionStoreError.isInstance(shelf)).toBe(false);
    expect(ShelfFullError.isInstance(new SessionStoreError("shelf_full", "x"))).toBe(false);
  });

  it("answers no for values that only look like an Arbor error", () => {
    for (const value of [
      new Error("x"),
      new TypeError("x"),
      { code: "shelf_full", name: "ShelfFullError" },
      { [Symbol.for("arbor.error")]: "@arbor/example:ShelfFullError" },
      ShelfFullError.isInstance,
      null,
      undefined,
      "ShelfFullError",
      42,
    ]) {
      expect(ArborError.isInstance(value)).toBe(false);
      expect(ShelfFullError.isInstance(value)).toBe(false);
    }
  });

  it("recognises errors of another copy of the module by their marker", async () => {
    const copy = await secondCopy();
    expect(copy.ArborError).not.toBe(ArborError);
    class ForeignShelfFullError extends copy.ArborError {
      static override readonly isInstance = copy.arborErrorGuard<ForeignShelfFullError>(
        "@arbor/example:ShelfFullError",
      );
    }
    class ForeignDoorLockedError extends copy.ArborError {
      static override readonly isInstance = copy.arborErrorGuard<ForeignDoorLockedError>(
        "@arbor/example:DoorLockedError",
      );
    }
    const foreign = new ForeignShelfFullError("shelf_full", "full");
    expect(foreign).not.toBeInstanceOf(ArborError);
    expect(ArborError.isInstance(foreign)).toBe(true);
    expect(ShelfFullError.isInstance(foreign)).toBe(true);
    expect(TopShelfFullError.isInstance(foreign)).toBe(false);
    expect(DoorLockedError.isInstance(foreign)).toBe(false);
    expect(copy.ArborError.isInstance(new TopShelfFullError())).toBe(true);
    expect(ForeignShelfFullError.isInstance(new TopShelfFullError())).toBe(true);
    expect(ForeignDoorLockedError.isInstance(new TopShelfFullError())).toBe(false);
    expect(ForeignDoorLockedError.isInstance(new DoorLockedError())).toBe(true);
  });

  it("recognises a plain object carrying the marker, as a copy's error is seen from here", () => {
    const carried = {
      [Symbol.for("arbor.error")]: [
        "@arbor/session-store:ArborError",
        "@arbor/example:ShelfFullError",
        "@arbor/example:TopShelfFullError",
      ],
    };
    expect(ArborError.isInstance(carried)).toBe(true);
    expect(ShelfFullError.isInstance(carried)).toBe(true);
    expect(TopShelfFullError.isInstance(carried)).toBe(true);
    expect(DoorLockedError.isInstance(carried)).toBe(false);
  });

  it("stamps an error that must keep a built-in base, with the groups it belongs to", () => {
    class LegacyRangeError extends RangeError {
      static readonly isInstance = arborErrorGuard<LegacyRangeError>(
        "@arbor/example:LegacyRangeError",
      );
      readonly code = "legacy_range";
      constructor() {
        super("out of range");
        stampArborError(this, new.target, ["@arbor/example:LegacyGroup"]);
      }
    }
    const inGroup = arborErrorGuard<LegacyRangeError>("@arbor/example:LegacyGroup");
    const legacy = new LegacyRangeError();
    expect(legacy).toBeInstanceOf(RangeError);
    expect(ArborError.isInstance(legacy)).toBe(true);
    expect(LegacyRangeError.isInstance(legacy)).toBe(true);
    expect(inGroup(legacy)).toBe(true);
    expect(inGroup(new ShelfFullError())).toBe(false);
    expect(ShelfFullError.isInstance(legacy)).toBe(false);
  });

  it("gives a subclass that declares no guard of its own the markers of its ancestors only", () => {
    class Unmarked extends ShelfFullError {}
    const error = new Unmarked();
    expect(error.name).toBe("Unmarked");
    expect(ShelfFullError.isInstance(error)).toBe(true);
    expect(Object.hasOwn(Unmarked, "isInstance")).toBe(false);
  });
});
