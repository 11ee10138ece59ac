/**
 * What a job's `context` must hold, derived from its automation's parameters — the one source of
 * truth for both the `context_schema` an automation shows (CONTRACT §3 "Automation") and the check
 * POST /jobs runs on a context.
 */
import { z } from "zod";
import type { AutomationParameter } from "@hub/db";

/** The JSON Schema object of `context_schema`. */
export type ContextJsonSchema = {
  type: "object";
  properties: Record<string, { type: "string"; description: string }>;
  required: string[];
  additionalProperties: true;
};

/**
 * `context_schema` of an automation: every parameter is a required string, and a context may hold
 * more keys than the parameters name.
 */
export function contextJsonSchemaOf(parameters: readonly AutomationParameter[]): ContextJsonSchema {
  return {
    type: "object",
    // fromEntries defines own properties, whatever the parameter names.
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, { type: "string" as const, description: parameter.description }])),
    required: parameters.map((parameter) => parameter.name),
    additionalProperties: true,
  };
}

/**
 * A zod schema that accepts exactly what {@link contextJsonSchemaOf} describes. Validate a job's
 * context with it under `["body","context"]` to get pydantic-shaped issues such as
 * `{loc: ["body","context","city"], type: "missing"}`. Extra keys are kept.
 */
export function jobContextSchemaOf(parameters: readonly AutomationParameter[]) {
  return z.looseObject(Object.fromEntries(parameters.map((parameter) => [parameter.name, z.string()])));
}
