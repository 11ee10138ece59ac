export * from "./throttle";
