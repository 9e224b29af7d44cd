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
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dbhooks did not start: ${logs.join("\n")}`)), 15_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        logs.push(line);
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === "dbhooks listening" && parsed.port) {
          clearTimeout(timer);
          resolve(parsed.port);
        }
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => logs.push(chunk.toString()));
    child.on("exit", (code) => reject(new Error(`dbhooks exited with ${code}: ${logs.join("\n")}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
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
