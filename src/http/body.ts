// Reading a hook request's JSON body with node:http alone: what express.json() did, minus what a hook never
// receives (compressed or non-UTF-8 bodies), at a fraction of the cost per request (see README, Performance).
import type { IncomingMessage } from "node:http";
import { HttpError } from "./errors.js";

export const NOT_JSON = "request body is not valid JSON";
export const TOO_LARGE = "request body is larger than the limit";

/** Media type and charset of a Content-Type header, lower-cased; undefined when there is none. */
function contentType(header: string | undefined): { type: string; charset: string | undefined } | undefined {
  if (!header) return undefined;
  const [type = "", ...params] = header.split(";");
  const charset = params
    .map((p) => p.trim().toLowerCase())
    .find((p) => p.startsWith("charset="))
    ?.slice("charset=".length)
    .replace(/^"(.*)"$/, "$1");
  return { type: type.trim().toLowerCase(), charset };
}

/** The checks that need no body: media type, charset, encoding, declared length. */
export function checkHeaders(req: IncomingMessage, limit: number): void {
  const type = contentType(req.headers["content-type"]);
  if (type?.type !== "application/json") throw new HttpError(415, "Content-Type must be application/json");
  if (type.charset !== undefined && type.charset !== "utf-8" && type.charset !== "utf8") {
    throw new HttpError(415, "unsupported charset");
  }
  const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
  if (encoding && encoding !== "identity") throw new HttpError(415, "unsupported content encoding");
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) throw new HttpError(413, TOO_LARGE);
}

/**
 * The whole body, or an HttpError: 413 as soon as it outgrows `limit` (the rest is not read), 400 if the
 * client goes away before the end. `done` is called exactly once.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  done: (error: HttpError | undefined, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (error: HttpError | undefined) => {
    if (finished) return;
    finished = true;
    req.off("data", onData);
    done(
      error,
      error ? Buffer.alloc(0) : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
    );
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) finish(new HttpError(413, TOO_LARGE));
    else chunks.push(chunk);
  };
  req.on("data", onData);
  req.once("end", () => finish(undefined));
  req.once("error", () => finish(new HttpError(400, "request aborted")));
  req.once("close", () => {
    if (!req.complete) finish(new HttpError(400, "request aborted"));
  });
}

/** JSON.parse as body-parser's strict mode did: an object or an array, an empty body read as {}. */
export function parseJson(body: Buffer): unknown {
  let text = body.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = /\S/.exec(text)?.[0];
  if (first === undefined) return {};
  if (first !== "{" && first !== "[") throw new HttpError(400, NOT_JSON);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, NOT_JSON);
  }
}

/** Whether `value` nests deeper than `limit` (iterative: it must not overflow the stack it is guarding). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== "object" || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
