export * from "./append";
export * from "./list";
