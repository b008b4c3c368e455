/**
 * The TypeScript client against a live Mnemos: MNEMOS_URL and MNEMOS_API_KEY name it
 * (tests/clients/test_typescript_client.py starts one and runs this file).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";

import {
  AuthenticationError,
  IDEMPOTENCY_HEADER,
  MnemosError,
  NotFoundError,
  OPERATIONS,
  UnprocessableEntityError,
  createMnemosClient,
  unwrap,
} from "../src/index.js";

const BASE_URL = required("MNEMOS_URL");
const API_KEY = required("MNEMOS_API_KEY");
const PACKAGE = process.cwd();

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through tests/clients/test_typescript_client.py`);
  return value;
}

const unique = () => `ts-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

function saveBody(word: string) {
  return {
    summary: `The TypeScript client saved the note ${word}`,
    content: `The TypeScript client wrote this memory, marked ${word}, to check the round trip.`,
    entities: [{ name: "TypeScript client", type: "tool" }],
    tags: ["clients/typescript"],
  };
}

/** A loopback proxy to the live server whose answers a test chooses first, one per request. */
class Stub {
  readonly seen: { method: string; url: string; headers: IncomingMessage["headers"] }[] = [];
  readonly plan: ((forward: () => Promise<Response>, res: ServerResponse) => Promise<void>)[] = [];
  private server = createServer((req, res) => void this.handle(req, res));
  url = "";

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const forward = () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) {
          headers.set(name, value);
        }
      }
      return fetch(`${BASE_URL}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
    };
    const step = this.plan.shift() ?? relay;
    await step(forward, res);
  }
}

async function relay(forward: () => Promise<Response>, res: ServerResponse): Promise<void> {
  const answer = await forward();
  res.writeHead(answer.status, { "Content-Type": answer.headers.get("Content-Type") ?? "application/json" });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

function refuse(status: number, code: string, headers: Record<string, string> = {}) {
  return async (_forward: () => Promise<Response>, res: ServerResponse) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(JSON.stringify({ error: `stub says ${code}`, code }));
  };
}

describe("the TypeScript client against a live Mnemos", () => {
  const mnemos = createMnemosClient({ baseUrl: BASE_URL, apiKey: API_KEY });

  test("whoami names the key's enterprise", async () => {
    const me = await mnemos.whoami();
    assert.ok(me.enterprise);
    assert.ok(me.scopes.includes("memory:write"));
  });

  test("a save then a search finds it", async () => {
    const word = unique();
    const saved = await mnemos.tool("save_memory", saveBody(word));
    assert.ok(saved.event_id);
    const found = await mnemos.tool("search_memory", { query: `TypeScript client note ${word}` });
    assert.ok(
      found.hits.some((hit) => hit.event_id === saved.event_id),
      `the search did not return the memory just saved: ${JSON.stringify(found).slice(0, 500)}`,
    );
  });

  test("openapi-fetch's typed routes go through the same fetch", async () => {
    const word = unique();
    const batch = await unwrap(
      mnemos.api.POST("/v1/memories:batch", {
        body: { items: [{ content: `first batch note ${word}` }, { content: `second batch note ${word}` }] },
      }),
    );
    assert.equal(batch.results.length, 2);
    const exports = await unwrap(mnemos.api.GET("/v1/exports"));
    assert.ok(Array.isArray(exports.exports));
  });

  test("a refusal is a MnemosError with the API's status and code", async () => {
    const stranger = createMnemosClient({ baseUrl: BASE_URL, apiKey: "mnm_00000000_not-a-key" });
    await assert.rejects(stranger.whoami(), (error: unknown) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.status, 401);
      assert.equal(error.code, "invalid_key");
      return true;
    });
    await assert.rejects(
      mnemos.tool("save_memory", { summary: "no content", entities: [] }),
      (error: unknown) => error instanceof UnprocessableEntityError && error.status === 422,
    );
    const loose = mnemos.api.POST as unknown as (path: string, init: object) => ReturnType<typeof mnemos.api.GET>;
    await assert.rejects(unwrap(loose("/v1/tools/no_such_tool", { body: {} })), (error: unknown) => {
      assert.ok(error instanceof NotFoundError && error instanceof MnemosError);
      assert.equal(error.body.code, error.code);
      return true;
    });
  });

  describe("through a loopback stub", () => {
    const stub = new Stub();
    before(() => stub.start());
    after(() => stub.stop());

    test("429 and 503 are retried after Retry-After", async () => {
      const client = createMnemosClient({ baseUrl: stub.url, apiKey: API_KEY });
      stub.seen.length = 0;
      stub.plan.push(refuse(429, "rate_limited", { "Retry-After": "1" }));
      stub.plan.push(refuse(503, "database_unavailable", { "Retry-After": "1" }));
      const started = performance.now();
      const me = await client.whoami();
      const elapsed = performance.now() - started;
      assert.ok(me.enterprise);
      assert.equal(stub.seen.length, 3);
      assert.ok(elapsed >= 2000, `retried after ${elapsed} ms, before the 2 s Retry-After asked`);
    });

    test("a bounded number of attempts, then the error", async () => {
      const client = createMnemosClient({ baseUrl: stub.url, apiKey: API_KEY, retry: { attempts: 2, backoffMs: 10 } });
      stub.seen.length = 0;
      stub.plan.push(refuse(503, "database_unavailable"), refuse(503, "database_unavailable"));
      await assert.rejects(client.whoami(), (error: unknown) => {
        assert.ok(error instanceof MnemosError);
        assert.equal(error.status, 503);
        assert.equal(error.code, "database_unavailable");
        return true;
      });
      assert.equal(stub.seen.length, 2);
    });

    test("a write whose answer was lost is retried with its key: one memory, the same result", async () => {
      const client = createMnemosClient({ baseUrl: stub.url, apiKey: API_KEY, retry: { backoffMs: 10 } });
      stub.seen.length = 0;
      // The server saves; the answer is lost on the way back (a gateway's 502).
      stub.plan.push(async (forward, res) => {
        await forward();
        await refuse(502, "bad_gateway")(forward, res);
      });
      const word = unique();
      const saved = await client.tool("save_memory", saveBody(word));
      assert.equal(stub.seen.length, 2);
      const [first, second] = stub.seen.map((s) => s.headers[IDEMPOTENCY_HEADER.toLowerCase()]);
      assert.ok(first && first === second, "both attempts carry the same X-Idempotency-Key");
      const again = await mnemos.tool("save_memory", saveBody(word), { idempotencyKey: String(first) });
      assert.equal(again.event_id, saved.event_id);
      const found = await mnemos.tool("search_memory", { query: `TypeScript client note ${word}` });
      const hits = found.hits.filter((hit) => hit.content.includes(word));
      assert.deepEqual(
        hits.map((hit) => hit.event_id),
        [saved.event_id],
        "the retried save wrote one memory",
      );
    });

    test("a read-only call carries no idempotency key", async () => {
      const client = createMnemosClient({ baseUrl: stub.url, apiKey: API_KEY });
      stub.seen.length = 0;
      await client.tool("list_memory_projects", {});
      assert.equal(stub.seen[0]?.headers[IDEMPOTENCY_HEADER.toLowerCase()], undefined);
    });
  });

  test("the generated types and operations match the document the server serves", async () => {
    const response = await fetch(`${BASE_URL}/v1/schema/?format=json`);
    assert.equal(response.status, 200);
    const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    const served = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((key) => /^(GET|PUT|POST|PATCH|DELETE) /.test(key))
      .sort();
    assert.deepEqual(Object.keys(OPERATIONS).sort(), served, "src/operations.ts is stale");
    const generator = await import(pathToFileURL(join(PACKAGE, "scripts", "generate.mjs")).href);
    const expected: string[] = (await generator.generateTypes(document)).split("\n");
    const committed = readFileSync(join(PACKAGE, "src", "schema.ts"), "utf8").split("\n");
    const line = expected.findIndex((text, i) => text !== committed[i]);
    assert.ok(
      line === -1 && expected.length === committed.length,
      `src/schema.ts differs from the served document at line ${line + 1}: ` +
        `${JSON.stringify(committed[line]?.slice(0, 200))} should be ${JSON.stringify(expected[line]?.slice(0, 200))}; ` +
        "run `.venv/bin/python clients/generate.py --refresh`",
    );
  });
});
