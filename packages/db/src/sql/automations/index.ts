export * from "./crud";
export * from "./stats";
