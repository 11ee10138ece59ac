export * from "./remove-expired";
