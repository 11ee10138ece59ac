/**
 * The driver's HTTP client: undici's `request` over one keep-alive pool per origin, without the
 * cost of `fetch` (streams, Headers objects, abort plumbing), because on 2 cores every CPU cycle
 * the driver spends is taken from the hub it measures.
 */
import { Pool } from "undici";

export class HttpFailure extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path} → ${status} ${body.slice(0, 200)}`);
    this.name = "HttpFailure";
  }
}

export class JsonClient {
  private readonly pool: Pool;

  constructor(
    readonly origin: string,
    connections: number,
  ) {
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  }

  /** Sends JSON, expects `expected` and returns the parsed body (undefined when empty). */
  async send<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, options: { body?: unknown; token?: string; expected: number }): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await this.pool.request({
      method,
      path,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.body.text();
    if (response.statusCode !== options.expected) throw new HttpFailure(method, path, response.statusCode, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
