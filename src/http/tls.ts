// HTTPS for the admission and conversion webhooks, which the API server calls over TLS only. The key pair
// is read from files (a Secret volume that cert-manager rotates) and reloaded when they change: new
// connections get the new certificate, open ones keep theirs.
import { existsSync, readFileSync, unwatchFile, watchFile } from "node:fs";
import type { RequestListener } from "node:http";
import { createServer, type Server } from "node:https";
import { createSecureContext } from "node:tls";
import type { Logger } from "pino";
import { SERVER_TIMEOUTS } from "./server.js";

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

function load(files: TlsFiles): { cert: Buffer; key: Buffer } {
  return { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile) };
}

/**
 * An HTTPS server for `listener` whose certificate follows the files. A pair that does not load (cert-manager
 * writes the two files one after the other) is logged and the previous one kept until the next change.
 */
export function createTlsServer(
  listener: RequestListener,
  files: TlsFiles,
  logger: Logger,
  pollMs = 5_000,
): Server {
  const server = createServer(
    {
      ...load(files),
      minVersion: "TLSv1.2",
      headersTimeout: SERVER_TIMEOUTS.headersMs,
      requestTimeout: SERVER_TIMEOUTS.requestMs,
      keepAliveTimeout: SERVER_TIMEOUTS.keepAliveMs,
    },
    listener,
  );
  const reload = () => {
    let pair: { cert: Buffer; key: Buffer };
    try {
      pair = load(files);
      // Throws on a half-written pair or a key that does not match the certificate.
      createSecureContext(pair);
    } catch (error) {
      logger.warn({ err: error }, "TLS key pair did not load; keeping the previous one");
      return;
    }
    server.setSecureContext({ ...pair, minVersion: "TLSv1.2" });
    logger.info({ certFile: files.certFile }, "TLS certificate reloaded");
  };
  // Polling, not fs.watch: a Secret volume swaps a symlink, which inotify watches of the file miss.
  const onChange = (now: { mtimeMs: number; ino: number }, before: { mtimeMs: number; ino: number }) => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino) reload();
  };
  watchFile(files.certFile, { interval: pollMs, persistent: false }, onChange);
  watchFile(files.keyFile, { interval: pollMs, persistent: false }, onChange);
  server.on("close", () => {
    unwatchFile(files.certFile, onChange);
    unwatchFile(files.keyFile, onChange);
  });
  return server;
}

export interface TlsListener extends TlsFiles {
  readonly host: string;
  readonly port: number;
  readonly reloadSeconds: number;
}

/**
 * Listens with HTTPS once the key pair exists: a Secret volume may be filled after the pod started (the
 * certificate is issued after the Deployment is applied), and the plain HTTP hooks must not wait for it.
 */
export function serveTls(listener: RequestListener, config: TlsListener, logger: Logger): { close(): void } {
  let server: Server | undefined;
  const start = (): boolean => {
    if (!existsSync(config.certFile) || !existsSync(config.keyFile)) return false;
    try {
      server = createTlsServer(listener, config, logger, config.reloadSeconds * 1000);
    } catch (error) {
      logger.warn({ err: error }, "TLS key pair did not load; retrying");
      return false;
    }
    server.listen(config.port, config.host, () => {
      const address = server?.address();
      const port = typeof address === "object" && address ? address.port : config.port;
      logger.info({ port, tls: true }, "dbhooks listening");
    });
    return true;
  };
  let waiting: NodeJS.Timeout | undefined;
  if (!start()) {
    logger.warn(
      { certFile: config.certFile },
      "TLS key pair not there yet: the webhooks are served once it appears",
    );
    waiting = setInterval(() => {
      if (start()) clearInterval(waiting);
    }, config.reloadSeconds * 1000);
    waiting.unref();
  }
  return {
    close() {
      clearInterval(waiting);
      server?.close();
      server?.closeIdleConnections();
    },
  };
}
