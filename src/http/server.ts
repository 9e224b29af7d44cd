// The HTTP server main listens with: its timeouts are what keeps a slow or stuck client from holding a
// socket (and its memory) forever. It does not listen; main does.
import { createServer, type RequestListener, type Server } from "node:http";

export interface ServerTimeouts {
  /** Until the request's headers are complete. */
  readonly headersMs: number;
  /** Until the whole request, body included, has arrived. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /** How often Node checks the two limits above: a limit is enforced within this much of being passed. */
  readonly checkIntervalMs: number;
}

// Metacontroller's default hook timeout is 10 s: a request still arriving after that has been given up on.
// Its Go client keeps connections idle for 90 s; closing them first at 65 s is the usual arrangement.
export const SERVER_TIMEOUTS: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 65_000,
  checkIntervalMs: 1_000,
};

export function createHttpServer(
  listener: RequestListener,
  timeouts: ServerTimeouts = SERVER_TIMEOUTS,
): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    listener,
  );
  return server;
}
