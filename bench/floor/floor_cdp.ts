/**
 * The floor's DevTools client: the least code that speaks CDP, on Deno's built-in WebSocket. One
 * connection, flat sessions, no deadlines and no error recovery (the floor only runs against the sandbox).
 *
 * @module
 */

/** Any CDP result or event payload. */
// deno-lint-ignore no-explicit-any
export type Cdp = any;

/** A CDP connection to a browser. */
export class FloorCdp {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, PromiseWithResolvers<Cdp>>();
  readonly #waiters = new Map<string, ((params: Cdp) => void)[]>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (event) => this.#receive(JSON.parse(event.data as string));
  }

  /** Opens the browser's DevTools WebSocket. */
  static async connect(url: string): Promise<FloorCdp> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    return new FloorCdp(socket);
  }

  /** Sends a command (to a session when `sessionId` is given) and resolves with its result. */
  send(method: string, params: object = {}, sessionId?: string): Promise<Cdp> {
    const id = this.#nextId++;
    const reply = Promise.withResolvers<Cdp>();
    this.#pending.set(id, reply);
    this.#socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return reply.promise;
  }

  /** Resolves with the next `method` event of `sessionId`; call it before the command that causes it. */
  once(method: string, sessionId?: string): Promise<Cdp> {
    const key = `${sessionId ?? ""}|${method}`;
    return new Promise((resolve) => {
      const list = this.#waiters.get(key) ?? [];
      list.push(resolve);
      this.#waiters.set(key, list);
    });
  }

  /** Closes the socket. */
  close(): void {
    this.#socket.close();
  }

  #receive(message: Cdp): void {
    if (message.id !== undefined) {
      const reply = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) reply?.reject(new Error(`${message.error.message} (${message.error.code})`));
      else reply?.resolve(message.result);
      return;
    }
    const key = `${message.sessionId ?? ""}|${message.method}`;
    const list = this.#waiters.get(key);
    if (!list) return;
    this.#waiters.delete(key);
    for (const resolve of list) resolve(message.params);
  }
}
