/**
 * The answer that brought each document of a tab (its page and its frames): status, headers, the server's
 * address and, over HTTPS, the TLS connection and the certificate, read from the browser's own
 * `Network.responseReceived` events, per frame, once {@linkcode DocumentAnswers.track} switched them on. A
 * redirect is followed to its end, since the browser tells only the last answer as the document's
 * (docs/chromium_notes.md#a-documents-answer-is-told-per-frame-after-its-redirects).
 *
 * @module
 */
import type { Protocol } from "devtools-protocol/types/protocol.d.ts";
import type { CdpConnection } from "../cdp/connection.ts";

/** The answer that brought a document. */
export interface DocumentAnswer {
  /** Where the document came from, after its redirects. */
  url: string;
  /** The HTTP status (200 for a `file:` page). */
  status: number;
  /** The status text, when the server sent one. */
  statusText: string;
  /** Its headers, names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** The server's address the browser connected to, when it says (not for a `file:` page). */
  remote?: RemoteAddress;
  /** The TLS connection and the server's certificate, for an answer over HTTPS. */
  tls?: TlsConnection;
}

/** A server's address: an IP address (an IPv6 one without brackets) and a port. */
export interface RemoteAddress {
  ip: string;
  port: number;
}

/** A TLS connection as the browser saw it, with the certificate the server showed. */
export interface TlsConnection {
  /** The protocol, as the browser names it: "TLS 1.3". */
  protocol: string;
  /** The certificate's subject as the browser names it: its common name (or else its organisation). */
  subject: string;
  /** Its issuer, named so too. */
  issuer: string;
  /** Its validity, ISO 8601 in UTC. */
  validFrom: string;
  validTo: string;
  /** Its subject alternative names, DNS names and IP addresses, in the certificate's order. */
  sanNames: string[];
}

/** The most frames whose answers are kept: a page that makes frames without end forgets the oldest. */
const MAX_FRAMES = 64;

/** How a tab's answers are followed. */
export interface TabOfAnswers {
  /** The tab's top frame (its target id): the page whose answer {@linkcode DocumentAnswers.of} gives by default. */
  page: string;
  /** Whether a frame is the tab's: events come from every session of the connection. */
  owns(frameId: string): boolean;
  /** Switches on the network events of the tab's sessions (the tab's readiness follows its requests). */
  followRequests(): Promise<void>;
  /** Called with how to stop listening, to call when the tab closes. */
  onClose(off: () => void): void;
}

/** The last document answer of each frame of one tab. */
export class DocumentAnswers {
  readonly #connection: Pick<CdpConnection, "on">;
  readonly #tab: TabOfAnswers;
  readonly #answers = new Map<string, DocumentAnswer>();
  #listening = false;

  /** Answers of the frames of `tab`; nothing is followed before {@linkcode track}. */
  constructor(connection: Pick<CdpConnection, "on">, tab: TabOfAnswers) {
    this.#connection = connection;
    this.#tab = tab;
  }

  /**
   * Follows the answers that bring the tab's documents from now on (and so their requests), from any session
   * whose network events are on (the tab's and its out-of-process frames'). Later calls do nothing more.
   */
  async track(): Promise<void> {
    if (!this.#listening) {
      this.#listening = true;
      this.#tab.onClose(this.#listen());
    }
    await this.#tab.followRequests();
  }

  #listen(): () => void {
    return this.#connection.on("Network.responseReceived", ({ type, frameId, response }) => {
      if (type !== "Document" || frameId === undefined || !this.#tab.owns(frameId)) return;
      this.#answers.delete(frameId);
      this.#answers.set(frameId, documentAnswer(response));
      if (this.#answers.size > MAX_FRAMES) this.#answers.delete(this.#answers.keys().next().value!);
    });
  }

  /**
   * The last answer (status, headers, address after redirects) that brought a document into frame `frameId`,
   * the page's when not given; undefined when none was seen since {@linkcode track}.
   */
  of(frameId: string = this.#tab.page): DocumentAnswer | undefined {
    return this.#answers.get(frameId);
  }
}

/**
 * A document's answer from the browser's account of it: the address and TLS details as
 * docs/chromium_notes.md#what-a-documents-answer-tells-of-its-connection has them.
 */
export function documentAnswer(response: Protocol.Network.Response): DocumentAnswer {
  const { remoteIPAddress: ip, remotePort: port, securityDetails: tls } = response;
  return {
    url: response.url,
    status: response.status,
    statusText: response.statusText,
    headers: Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
    ),
    ...(ip === undefined || ip === "" || port === undefined
      ? {}
      : { remote: { ip: ip.replace(/^\[(.*)\]$/, "$1"), port } }),
    ...(tls === undefined ? {} : {
      tls: {
        protocol: tls.protocol,
        subject: tls.subjectName,
        issuer: tls.issuer,
        validFrom: isoTime(tls.validFrom),
        validTo: isoTime(tls.validTo),
        sanNames: [...tls.sanList],
      },
    }),
  };
}

/** A CDP time (seconds since the epoch) in ISO 8601, UTC. */
function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
