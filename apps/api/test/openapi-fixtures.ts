/** Reading the served OpenAPI document in tests: named schemas are components, referenced by `$ref`. */
export function resolveSchema(document: any, schema: any): any {
  if (!schema?.$ref) return schema;
  const name = String(schema.$ref).split("/").pop()!;
  return document.components.schemas[name];
}
