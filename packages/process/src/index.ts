export * from "./run-hub-process";
export * from "./shutdown";
