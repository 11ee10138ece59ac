export * from "./crud";
export * from "./stats";
export * from "./limits";
