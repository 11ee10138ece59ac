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

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface RequestOptions {
  body?: unknown;
  /** Bearer token of a user. */
  token?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export class JsonClient {
  private readonly pool: Pool;

  constructor(
    readonly origin: string,
    connections: number,
    /** Longest wait for an answer's headers: above the longest long-poll. */
    headersTimeoutMs = 300_000,
  ) {
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: headersTimeoutMs });
  }

  /** Sends JSON, expects `expected` and returns the parsed body (undefined when empty). */
  async send<T>(method: HttpMethod, path: string, options: RequestOptions & { expected: number }): Promise<T> {
    const answer = await this.exchange(method, path, options);
    if (answer.status !== options.expected) throw new HttpFailure(method, path, answer.status, answer.text);
    return (answer.text ? JSON.parse(answer.text) : undefined) as T;
  }

  /** Sends JSON and returns the status and the raw body, whatever the status. */
  async exchange(method: HttpMethod, path: string, options: RequestOptions): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await this.pool.request({
      method,
      path,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
