/**
 * JSON Schemas of the document, rendered from the zod schemas that validate. A zod schema named
 * with `.meta({ id: "Job" })` becomes `components/schemas/Job` and is referenced where it appears,
 * so generated clients get named types (`Job`, `Automation`, `ValidationError` …) instead of
 * anonymous inline ones; unnamed schemas stay inline.
 *
 * A named schema can render differently as a request (input: fields with defaults are optional)
 * and as a response (output). Responses are rendered first and keep the name; a request rendering
 * that differs is stored as `<name>Input`.
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

const LOCAL_DEFS = "#/$defs/";
const COMPONENTS = "#/components/schemas/";

/** Replaces every `$ref` in `value` through `rename` (deeply; returns new objects). */
function mapRefs(value: unknown, rename: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapRefs(item, rename));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, key === "$ref" && typeof item === "string" ? rename(item) : mapRefs(item, rename)]),
  );
}

/**
 * A request schema without `default` on its optional properties, the default said in the
 * description instead. openapi-typescript, with its default settings, makes a property that has a
 * default required in the type it generates (right for a response, which always carries it), and
 * only spares request bodies written inline, not named ones (`CreateJobRequest`): a client would
 * have to send every defaulted field (CONTRACT §6.21). Deeply; returns new objects.
 */
function withoutRequestDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRequestDefaults);
  if (typeof value !== "object" || value === null) return value;
  const schema = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutRequestDefaults(item)])) as JsonSchema;
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const required = (schema.required as string[] | undefined) ?? [];
  if (properties === undefined || typeof properties !== "object") return schema;
  for (const [name, property] of Object.entries(properties)) {
    if (!("default" in property) || required.includes(name)) continue;
    const { default: fallback, description, ...rest } = property;
    const said = `Default: \`${JSON.stringify(fallback)}\`.`;
    properties[name] = { ...rest, description: typeof description === "string" ? `${description}. ${said}`.replace(/\.\. /, ". ") : said };
  }
  return schema;
}

export class ComponentSchemas {
  private readonly schemas = new Map<string, JsonSchema>();
  private inputPhase = false;

  /**
   * The JSON Schema of `schema` as a request (`input`) or a response (`output`), its named parts
   * moved into the components. Render every response before the first request.
   */
  render(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    if (io === "output" && this.inputPhase) throw new Error("ComponentSchemas: render responses (output) before requests (input)");
    this.inputPhase ||= io === "input";
    const rendered = z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline" });
    const {
      $schema: _dialect,
      $defs,
      ...root
    } = (io === "input" ? withoutRequestDefaults(rendered) : rendered) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const definitions = Object.entries($defs ?? {});
    const names = new Map(definitions.map(([id]) => [id, id]));
    const rename = (ref: string) => (ref.startsWith(LOCAL_DEFS) ? COMPONENTS + (names.get(ref.slice(LOCAL_DEFS.length)) ?? ref) : ref);
    // A definition that refers to a renamed one may need renaming too: repeat until none changes.
    for (let changed = true; changed;) {
      changed = false;
      for (const [id, definition] of definitions) {
        const name = this.nameFor(id, mapRefs(definition, rename) as JsonSchema, io);
        if (name !== names.get(id)) {
          names.set(id, name);
          changed = true;
        }
      }
    }
    for (const [id, definition] of definitions) this.schemas.set(names.get(id)!, mapRefs(definition, rename) as JsonSchema);
    return mapRefs(root, rename) as JsonSchema;
  }

  /** Components by name, sorted, for a stable document. */
  all(): Record<string, JsonSchema> {
    return Object.fromEntries([...this.schemas.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Where the definition `id` (its refs already pointing at components) goes: its own name, or `<id>Input` for a differing request rendering. */
  private nameFor(id: string, definition: JsonSchema, io: "input" | "output"): string {
    const existing = this.schemas.get(id);
    if (existing === undefined || isDeepStrictEqual(existing, definition)) return id;
    if (io === "output") throw new Error(`OpenAPI: two different schemas are named ${id}`);
    const inputName = `${id}Input`;
    const existingInput = this.schemas.get(inputName);
    if (existingInput !== undefined && !isDeepStrictEqual(existingInput, definition)) throw new Error(`OpenAPI: two different request schemas are named ${id}`);
    return inputName;
  }
}
