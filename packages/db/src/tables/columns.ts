/** Column shapes shared by the table declarations. */
import { sql } from "drizzle-orm";
import { type AnyPgColumn, timestamp } from "drizzle-orm/pg-core";

/** `column between min and max`, for a check constraint that keeps a setting within its limits. */
export const within = (column: AnyPgColumn, { min, max }: { min: number; max: number }) =>
  sql`${column} between ${sql.raw(String(min))} and ${sql.raw(String(max))}`;

export const createdAt = () => timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow();
export const tz = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
