import { connect, type Socket } from "node:net";

/** A Redis MONITOR session that reports each command the server runs, as its arguments. */
export interface RedisMonitor {
  close(): void;
}

/**
 * Opens MONITOR on a plain socket. ioredis's own `monitor()` can mistake a monitor line for the
 * reply to a command it still has queued and throw "Command queue state error" (redis/ioredis#1981),
 * which once failed CI; a socket that sends nothing after MONITOR has no queue to get wrong.
 * Resolves once the server has answered +OK, so every command after that is seen.
 */
export function monitorRedis(redisUrl: string, onCommand: (args: string[]) => void): Promise<RedisMonitor> {
  const url = new URL(redisUrl);
  const socket: Socket = connect({ host: url.hostname || "127.0.0.1", port: Number(url.port || 6379) });
  const database = url.pathname.length > 1 ? url.pathname.slice(1) : "";
  let buffered = "";
  // AUTH and SELECT answer +OK too; MONITOR's +OK is the last of them.
  let pendingOks = 1 + (url.password ? 1 : 0) + (database ? 1 : 0);
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.on("connect", () => {
      if (url.password) socket.write(`AUTH ${url.username ? `${decodeURIComponent(url.username)} ` : ""}${decodeURIComponent(url.password)}\r\n`);
      if (database) socket.write(`SELECT ${database}\r\n`);
      socket.write("MONITOR\r\n");
    });
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf("\r\n")) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (line.startsWith("-")) return reject(new Error(`Redis refused MONITOR: ${line.slice(1)}`));
        if (pendingOks > 0) {
          if (line === "+OK" && --pendingOks === 0) resolve({ close: () => socket.destroy() });
          continue;
        }
        const args = parseMonitorLine(line);
        if (args) onCommand(args);
      }
    });
  });
}

/** `+1700000000.123456 [0 127.0.0.1:1234] "cmd" "arg"` → ["cmd", "arg"], with Redis's escapes undone. */
export function parseMonitorLine(line: string): string[] | undefined {
  const start = line.indexOf('] "');
  if (!line.startsWith("+") || start < 0) return undefined;
  const args: string[] = [];
  let index = start + 2;
  while (index < line.length) {
    if (line[index] !== '"') {
      index += 1;
      continue;
    }
    let value = "";
    index += 1;
    while (index < line.length && line[index] !== '"') {
      if (line[index] === "\\") {
        const next = line[index + 1];
        if (next === "x") {
          value += String.fromCharCode(parseInt(line.slice(index + 2, index + 4), 16));
          index += 4;
          continue;
        }
        value += next === "n" ? "\n" : next === "r" ? "\r" : next === "t" ? "\t" : next;
        index += 2;
        continue;
      }
      value += line[index];
      index += 1;
    }
    args.push(value);
    index += 1;
  }
  return args;
}
