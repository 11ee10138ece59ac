export * from "./crud";
export * from "./delivery-loop";
