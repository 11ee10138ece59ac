export * from "./rules";
export * from "./evaluate";
export * from "./observe";
export * from "./resolve";
export * from "./list";
