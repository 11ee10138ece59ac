export * from "./crud";
