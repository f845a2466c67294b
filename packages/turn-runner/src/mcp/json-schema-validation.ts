import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => unknown;

/** Compiling a JSON schema: a validator, or why the schema cannot be used. */
export type CompiledJsonSchema =
  | { ok: true; validate: (value: unknown) => string | undefined }
  | { ok: false; error: string };

const ajvOptions = {
  strict: false,
  allErrors: true,
  validateSchema: false,
  // schemas with an `$id` are not registered, so two tools may reuse one id
  addUsedSchema: false,
  // a package prints nothing; unknown keywords and formats are ignored quietly
  logger: false,
} as const;

/**
 * Compiles JSON schemas from MCP servers (untrusted) into argument validators: draft
 * 2020-12 or 2019-09 when the schema says so, draft-07 otherwise. Remote `$ref`s are never
 * fetched (they make the schema unusable), and nothing is printed.
 */
export class JsonSchemaCompiler implements jsonSchemaValidator {
  readonly #draft07 = new Ajv(ajvOptions);
  readonly #draft2020 = new Ajv2020(ajvOptions);

  constructor() {
    addFormats(this.#draft07);
    addFormats(this.#draft2020);
  }

  /** Compiles a schema; never throws. */
  compile(schema: Record<string, unknown>): CompiledJsonSchema {
    const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
    const ajv = /2020-12|2019-09/.test(dialect) ? this.#draft2020 : this.#draft07;
    let validateFunction: ValidateFunction;
    try {
      validateFunction = ajv.compile(schema);
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    return {
      ok: true,
      validate: (value) =>
        validateFunction(value)
          ? undefined
          : ajv.errorsText(validateFunction.errors, { dataVar: "arguments" }),
    };
  }

  /**
   * The MCP client's hook for checking structured tool output. A server's output schema
   * that does not compile is not held against its results: they pass unchecked.
   */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const compiled = this.compile(schema as Record<string, unknown>);
    return (input) => {
      const problem = compiled.ok ? compiled.validate(input) : undefined;
      return problem === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: problem };
    };
  }
}
