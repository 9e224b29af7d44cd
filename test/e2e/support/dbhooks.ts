// dbhooks as the real service: `node dist/main.js` on a free loopback port (global-setup builds dist/).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { Obj } from "./kube.js";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const CREDENTIALS_KEY = "e2e-credentials-key-0123456789abcdef0123";

export interface DbhooksServer {
  readonly url: string;
  /** https://127.0.0.1:<port> when started with DBHOOKS_TLS_CERT_FILE/KEY_FILE. */
  readonly tlsUrl: string | undefined;
  readonly logs: string[];
  stop(): Promise<void>;
}

export async function startDbhooks(env: Record<string, string> = {}): Promise<DbhooksServer> {
  const child: ChildProcess = spawn(process.execPath, [`${ROOT}dist/main.js`], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      DBHOOKS_CREDENTIALS_KEY: CREDENTIALS_KEY,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const wantTls = Boolean(env.DBHOOKS_TLS_CERT_FILE);
  const ports: { http?: number; https?: number } = {};
  /** Records a log line; true once every listener we wait for has said its port. */
  const onLine = (line: string): boolean => {
    logs.push(line);
    const parsed = JSON.parse(line) as { msg?: string; port?: number; tls?: boolean };
    if (parsed.msg === "dbhooks listening" && parsed.port) ports[parsed.tls ? "https" : "http"] = parsed.port;
    return Boolean(ports.http && (ports.https || !wantTls));
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dbhooks did not start: ${logs.join("\n")}`)), 15_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      const started = chunk.toString().split("\n").filter(Boolean).map(onLine).includes(true);
      if (started) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => logs.push(chunk.toString()));
    child.on("exit", (code) => reject(new Error(`dbhooks exited with ${code}: ${logs.join("\n")}`)));
  });
  return {
    url: `http://127.0.0.1:${ports.http}`,
    tlsUrl: ports.https ? `https://127.0.0.1:${ports.https}` : undefined,
    logs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** Every object in a YAML file of the repository. */
export function manifest(path: string): Obj[] {
  return parseAllDocuments(readFileSync(`${ROOT}${path}`, "utf8"))
    .map((d) => d.toJS() as Obj)
    .filter(Boolean);
}
