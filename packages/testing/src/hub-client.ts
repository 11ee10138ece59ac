/** A small HTTP client of the hub's API for tests: JSON in and out, a bearer token or a worker key per call. */

export interface HttpResult<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | undefined;
  workerKey?: string | undefined;
  headers?: Record<string, string>;
  /** Sent as is (a string is not JSON-encoded). */
  rawBody?: string;
}

export class HubClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.workerKey) headers["x-worker-api-key"] = options.workerKey;
    let payload: string | undefined = options.rawBody;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (e.g. /metrics, /docs)
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("GET", path, undefined, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("POST", path, body, options);
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("PUT", path, body, options);
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("PATCH", path, body, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("DELETE", path, undefined, options);
  }

  /** Logs in and returns the access token (throws when login fails). */
  async login(email: string, password: string): Promise<string> {
    const result = await this.post<{ access_token: string }>("/identity/token", { email, password });
    if (result.status !== 200) throw new Error(`login failed for ${email}: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.access_token;
  }
}
