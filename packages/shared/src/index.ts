export * from "./errors";
export * from "./validation";
export * from "./fields";
export * from "./env";
export * from "./logger";
export * from "./redis";
export * from "./shutdown";
export * from "./domain";
