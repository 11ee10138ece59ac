export * from "./register";
export * from "./heartbeat";
export * from "./signals";
export * from "./offline";
export * from "./key-holds";
