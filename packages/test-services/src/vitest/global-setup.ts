// Runs once per `vitest run`: finds (or starts) PostgreSQL and Redis and hands their URLs to tests.
import type { TestProject } from "vitest/node";
import { startTestServices } from "../servers";
import type {} from "./inject";

export default async function setup(project: TestProject) {
  const services = await startTestServices();
  project.provide("databaseServerUrl", services.databaseServerUrl);
  project.provide("redisUrl", services.redisUrl);
  return () => services.stop();
}
