export * from "./forget-expired";
