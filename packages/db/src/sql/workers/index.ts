export * from "./register";
export * from "./heartbeat";
