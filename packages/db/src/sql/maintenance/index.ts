export * from "./windows";
export * from "./occurrences";
export * from "./passes";
