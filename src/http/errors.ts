// Errors -> HTTP. A client's mistake is a 4xx with a JSON body that says what is wrong; anything else is a
// 500 with no detail (the stack goes to the log, never to the caller).
import type { ServerResponse } from "node:http";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";

export class HttpError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** A JSON answer, written with node:http alone (hook routes do not go through Express's response). */
export function sendJson(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, JSON.stringify({ error: message }));
}

/** body-parser's errors carry a 4xx `status` and a `type` such as entity.parse.failed. */
function clientError(error: unknown): { status: number; message: string } | undefined {
  if (error instanceof HttpError) return { status: error.status, message: error.message };
  if (typeof error !== "object" || error === null) return undefined;
  const { status, type, expose } = error as { status?: unknown; type?: unknown; expose?: unknown };
  if (typeof status !== "number" || status < 400 || status > 499) return undefined;
  const messages: Record<string, string> = {
    "entity.parse.failed": "request body is not valid JSON",
    "entity.too.large": "request body is larger than the limit",
    "encoding.unsupported": "unsupported content encoding",
    "charset.unsupported": "unsupported charset",
    "request.aborted": "request aborted",
    "request.size.invalid": "request size did not match content length",
  };
  const message = typeof type === "string" ? messages[type] : undefined;
  return { status, message: message ?? (expose === true ? String((error as Error).message) : "bad request") };
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = clientError(error);
    if (known) {
      logger.debug({ path: req.path, status: known.status }, known.message);
      if (!res.headersSent) sendError(res, known.status, known.message);
      return;
    }
    logger.error({ err: error, path: req.path }, "unhandled error");
    if (!res.headersSent) sendError(res, 500, "internal error");
  };
}
