export * from "./lookups";
