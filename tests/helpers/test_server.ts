/**
 * A small per-test HTTP server (in the spirit of Puppeteer's TestServer): `Deno.serve` on 127.0.0.1 and a
 * free port, routes registered by the test, every request recorded, and handlers that hang or never end
 * their body released by `close()`, which awaits the server's shutdown (so Deno's sanitizers stay green).
 *
 * @module
 */

/** A route handler; `closing` aborts when the server closes, so slow handlers can give up. */
export type RouteHandler = (request: Request, closing: AbortSignal) => Response | Promise<Response>;

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/page?x=1`. */
  path: string;
  /** The `Host` header as the client sent it (shows which hostname the browser used). */
  host: string;
  headers: Headers;
}

const encoder = new TextEncoder();

/** An HTTP server on `127.0.0.1:<free port>` for one test. */
export class TestServer implements AsyncDisposable {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #routes = new Map<string, RouteHandler>();
  readonly #closing = new AbortController();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #closed: Promise<void> | undefined;

  private constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#handle(request),
    );
  }

  /** Starts a server; it listens once this returns. */
  static start(): TestServer {
    return new TestServer();
  }

  /** The port the server listens on. */
  get port(): number {
    return this.#server.addr.port;
  }

  /** `http://<host>:<port><path>`; pass `"localhost"` to reach the same server as another site. */
  url(path: string, host = "127.0.0.1"): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** Serves `path` (the path part only, query ignored) with `handler`; replaces an earlier route. */
  route(path: string, handler: RouteHandler): this {
    this.#routes.set(path, handler);
    return this;
  }

  /** Serves an HTML document at `path`. */
  html(path: string, body: string, headers: Record<string, string> = {}): this {
    return this.route(path, () => htmlResponse(body, headers));
  }

  /** A route that accepts the request and never answers until the server closes. */
  hang(path: string): this {
    return this.route(path, (_request, closing) =>
      new Promise<Response>((resolve) => {
        const release = () => resolve(new Response("released", { status: 503 }));
        if (closing.aborted) release();
        else closing.addEventListener("abort", release, { once: true });
      }));
  }

  /** A route that sends its headers and `head` of the body, and then never ends the body. */
  endless(path: string, head: string): this {
    return this.route(path, (_request, closing) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(head));
          const end = () => {
            try {
              controller.close();
            } catch { /* the client cancelled already */ }
          };
          if (closing.aborted) end();
          else closing.addEventListener("abort", end, { once: true });
        },
      });
      return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
    });
  }

  /** The requests whose path (without the query) is `path`. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path.split("?")[0] === path);
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    this.requests.push({
      method: request.method,
      path: url.pathname + url.search,
      host: request.headers.get("host") ?? "",
      headers: request.headers,
    });
    const handler = this.#routes.get(url.pathname);
    if (handler === undefined) return new Response("not found", { status: 404 });
    return await handler(request, this.#closing.signal);
  }

  /** Releases hanging handlers and endless bodies, then waits for the server to shut down. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      await this.#server.shutdown();
      await this.#server.finished;
    })();
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** An HTML response (UTF-8). */
export function htmlResponse(body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });
}

/** A loopback port that nothing listens on right now (for "connection refused"; never port 9, which
 * Chromium blocks as unsafe before trying to connect). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
