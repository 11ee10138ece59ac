/**
 * `@hub/api/openapi`: the API's OpenAPI document builder and its route list, for tools that need
 * the document without a running server (the @hub/client generator).
 */
export { buildOpenApiDocument } from "./document";
export { allRoutes } from "../routes";
