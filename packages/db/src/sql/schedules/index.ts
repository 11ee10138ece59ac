export * from "./crud";
export * from "./fire";
