/**
 * A typed client for Mnemos's REST API.
 *
 * `api` is openapi-fetch's client over the types openapi-typescript generated from the OpenAPI
 * document (`src/schema.ts`); `tool(name, body)` and `whoami()` unwrap its answers, raising
 * `MnemosError` (and its subclasses) with the API's `{"error", "code"}` body. Every request goes
 * through a fetch that sets `X-Idempotency-Key` on the writes that take one and retries: 429 and 503
 * on every operation, other 5xx and broken connections where a repeat cannot do the work twice,
 * waiting `Retry-After` when the answer gives it, else an exponential back-off with jitter.
 */

import createClient, { type Client } from "openapi-fetch";

import { OPERATIONS, type OperationInfo } from "./operations.js";
import type { components, paths } from "./schema.js";

export { API_VERSION, OPERATIONS, type OperationInfo } from "./operations.js";
export type { components, operations, paths } from "./schema.js";

export type Schemas = components["schemas"];
export const IDEMPOTENCY_HEADER = "X-Idempotency-Key";

// ---------------------------------------------------------------------------------------------------
// Errors

/** The API's refusal body: `error` (the text) and `code` (stable), and the error's own details. */
export interface ErrorBody {
  error: string;
  code: string;
  [detail: string]: unknown;
}

/** A refusal from Mnemos, or no answer at all (`APIConnectionError`, status 0). */
export class MnemosError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: ErrorBody;
  readonly requestId: string | null;
  /** Seconds the answer's `Retry-After` asked for, when it did. */
  readonly retryAfter: number | null;

  constructor(
    message: string,
    init: { status: number; code: string; body?: ErrorBody; requestId?: string | null; retryAfter?: number | null },
  ) {
    super(init.status ? `${init.status} ${init.code}: ${message}` : `${init.code}: ${message}`);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.body = init.body ?? { error: message, code: init.code };
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }

  /** The error's text, as the API gave it. */
  get apiMessage(): string {
    return this.body.error;
  }
}

export class APIConnectionError extends MnemosError {}
export class BadRequestError extends MnemosError {}
export class AuthenticationError extends MnemosError {}
export class PermissionDeniedError extends MnemosError {}
export class NotFoundError extends MnemosError {}
export class ConflictError extends MnemosError {}
export class PayloadTooLargeError extends MnemosError {}
export class UnprocessableEntityError extends MnemosError {}
export class RateLimitError extends MnemosError {}
export class InternalServerError extends MnemosError {}
export class ServiceUnavailableError extends MnemosError {}

const BY_STATUS: Record<number, typeof MnemosError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/** The exception for a refusal: the API's body when it is one, else the status and the text. */
export function errorFor(response: Response, body: unknown): MnemosError {
  const status = response.status;
  const init = {
    status,
    requestId: response.headers.get("X-Request-Id"),
    retryAfter: retryAfterSeconds(response),
  };
  const Kind = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : MnemosError);
  if (isErrorBody(body)) {
    return new Kind(body.error, { ...init, code: body.code || `http_${status}`, body });
  }
  const text = typeof body === "string" ? (body.trim().split("\n")[0] ?? "").slice(0, 500) : "";
  return new Kind(text || response.statusText, { ...init, code: `http_${status}` });
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === "object" && body !== null && typeof (body as ErrorBody).error === "string";
}

// ---------------------------------------------------------------------------------------------------
// Retries and idempotency keys

export interface RetryPolicy {
  /** Attempts in all (1: no retry). */
  attempts: number;
  /** Back-off before attempt n+1: `backoffMs * 2**(n-1)`, at most `maxBackoffMs`, with jitter. */
  backoffMs: number;
  maxBackoffMs: number;
  /** A `Retry-After` longer than this is not waited for: the error says when to come back. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, backoffMs: 500, maxBackoffMs: 8000, maxRetryAfterMs: 60_000 };
const RETRIED_ALWAYS = new Set([429, 503]);

/** `Retry-After` in seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get("Retry-After");
  if (value === null) return null;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds)) return Math.max(0, seconds);
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, (when - Date.now()) / 1000);
}

function delayMs(policy: RetryPolicy, attempt: number, retryAfter: number | null): number | null {
  if (attempt >= policy.attempts) return null;
  if (retryAfter !== null) {
    const ms = retryAfter * 1000;
    return ms <= policy.maxRetryAfterMs ? ms : null;
  }
  const exponential = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempt - 1));
  return exponential * (0.5 + Math.random() / 2);
}

interface Route {
  method: string;
  pattern: RegExp;
  info: OperationInfo;
}

const ROUTES: Route[] = Object.entries(OPERATIONS).map(([key, info]) => {
  const [method, path] = key.split(" ") as [string, string];
  const pattern = path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return { method, pattern: new RegExp(`^${pattern}$`), info };
});

/** The operation a request is for, by method and path below the base URL. */
export function operationFor(method: string, path: string): OperationInfo | undefined {
  return ROUTES.find((r) => r.method === method && r.pattern.test(path))?.info;
}

function refusedConnection(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  return code === "ECONNREFUSED";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that keys the writes that take `X-Idempotency-Key` (one key per call, the same on every
 * attempt) and retries as the policy says.
 */
export function retryingFetch(
  options: { baseUrl: string; retry?: Partial<RetryPolicy>; fetch?: typeof fetch },
): (input: Request) => Promise<Response> {
  const policy = { ...DEFAULT_RETRY, ...options.retry };
  const inner = options.fetch ?? globalThis.fetch;
  const basePath = new URL(options.baseUrl).pathname.replace(/\/$/, "");
  return async (input: Request) => {
    const url = new URL(input.url);
    const info = operationFor(input.method, decodeURI(url.pathname).slice(basePath.length));
    const headers = new Headers(input.headers);
    if (info?.idempotencyKey && !headers.has(IDEMPOTENCY_HEADER)) {
      headers.set(IDEMPOTENCY_HEADER, crypto.randomUUID());
    }
    const retrySafe = input.method === "GET" || input.method === "PUT" || (info?.retrySafe ?? false);
    // The body is read once, to be sent again as it was.
    const body = input.body === null ? undefined : await input.arrayBuffer();
    for (let attempt = 1; ; attempt++) {
      let wait: number | null;
      try {
        const response = await inner(
          new Request(input.url, { method: input.method, headers, body, signal: input.signal }),
        );
        const status = response.status;
        const retried = RETRIED_ALWAYS.has(status) || (status >= 500 && retrySafe);
        wait = retried ? delayMs(policy, attempt, retryAfterSeconds(response)) : null;
        if (wait === null) return response;
        await response.body?.cancel();
      } catch (error) {
        if (input.signal?.aborted) throw error;
        wait = refusedConnection(error) || retrySafe ? delayMs(policy, attempt, null) : null;
        if (wait === null) {
          const message = error instanceof Error ? error.message : String(error);
          throw new APIConnectionError(message, { status: 0, code: "connection_error" });
        }
      }
      await sleep(wait);
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// The client

type ToolPath = Extract<keyof paths, `/v1/tools/${string}`>;
export type ToolName = ToolPath extends `/v1/tools/${infer Name}` ? Name : never;
type ToolOperation<N extends ToolName> = paths[`/v1/tools/${N}`]["post"];
export type ToolInput<N extends ToolName> = NonNullable<ToolOperation<N>["requestBody"]>["content"]["application/json"];
export type ToolOutput<N extends ToolName> = ToolOperation<N>["responses"][200]["content"]["application/json"];

export interface MnemosClientOptions {
  /** Where Mnemos answers, e.g. `https://mnemos.example.com`. */
  baseUrl: string;
  /** An access key (`mnm_...`), sent as `Authorization: Bearer`. */
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch underneath (the global one by default). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Your own idempotency key for a write (one is made per call otherwise). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface MnemosClient {
  /** openapi-fetch's typed client: `api.GET("/v1/exports")`, `api.POST("/v1/memories:batch", {body})`. */
  api: Client<paths>;
  /** Calls a tool (`POST /v1/tools/<name>`) and returns its result, or throws `MnemosError`. */
  tool<N extends ToolName>(name: N, body: ToolInput<N>, options?: CallOptions): Promise<ToolOutput<N>>;
  /** The identity behind the access key. */
  whoami(): Promise<Schemas["WhoAmI"]>;
}

/** openapi-fetch's answer as its data, or its error as a `MnemosError`. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFor(response, error);
  return data as T;
}

export function createMnemosClient(options: MnemosClientOptions): MnemosClient {
  const baseUrl = options.baseUrl.replace(/\/$/, "");
  const api = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}`, ...options.headers },
    fetch: retryingFetch({ baseUrl, retry: options.retry, fetch: options.fetch }),
  });
  // One loosely typed door for every tool: the public signature above carries the types.
  const post = api.POST as unknown as (
    path: string,
    init: { body: unknown; headers?: Record<string, string>; signal?: AbortSignal },
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  return {
    api,
    async tool(name, body, callOptions = {}) {
      const headers: Record<string, string> = {};
      if (callOptions.idempotencyKey) headers[IDEMPOTENCY_HEADER] = callOptions.idempotencyKey;
      const path = `/v1/tools/${encodeURIComponent(name)}`;
      return (await unwrap(post(path, { body, headers, signal: callOptions.signal }))) as ToolOutput<typeof name>;
    },
    whoami() {
      return unwrap(api.GET("/v1/whoami"));
    },
  };
}
