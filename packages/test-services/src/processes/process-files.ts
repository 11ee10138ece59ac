/** What a test reads of a child process from files: its log's tail, and its peak memory from /proc. */
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** Peak resident memory (VmHWM) of `pid` in KiB; undefined when /proc cannot tell (not Linux, or gone). */
export async function readPeakRssKb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The size of `file` in bytes; 0 when it does not exist. */
export function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The last `maxBytes` of a file from `fromOffset` on, read without loading the rest ("" when it does not exist). */
export function readTail(file: string, maxBytes: number, fromOffset = 0): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    const start = Math.max(fromOffset, size - maxBytes);
    const buffer = Buffer.alloc(Math.max(size - start, 0));
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A new directory for the logs of a test's processes, under the OS temp directory. */
export function newLogDir(label: string): string {
  const dir = path.join(tmpdir(), "hub-processes", `${label}-${Date.now()}-${randomBytes(3).toString("hex")}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
