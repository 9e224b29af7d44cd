// The golden fixtures under hooks/: one folder per case with request.json and response.json.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HookContext, HookRequest } from "../../src/metacontroller/types.js";

export const HOOKS_DIR = new URL("../../hooks/", import.meta.url).pathname;

interface ContextFile {
  now: string;
  credentialsKey: string;
  finalBackupTimeoutSeconds: number;
}

const contextFile = JSON.parse(readFileSync(join(HOOKS_DIR, "context.json"), "utf8")) as ContextFile;

/** The fixed clock and key every fixture was answered with. */
export const FIXTURE_CONTEXT: HookContext = {
  now: new Date(contextFile.now),
  credentialsKey: new TextEncoder().encode(contextFile.credentialsKey),
  finalBackupTimeoutSeconds: contextFile.finalBackupTimeoutSeconds,
};
export const FIXTURE_CREDENTIALS_KEY = contextFile.credentialsKey;

export interface Fixture {
  readonly resource: string;
  readonly name: string;
  readonly dir: string;
  readonly hook: "sync" | "finalize";
  readonly requestText: string;
  readonly request: HookRequest;
  /** undefined until the first UPDATE_GOLDEN=1 run writes it. */
  readonly responseText: string | undefined;
}

export function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const resource of readdirSync(HOOKS_DIR, { withFileTypes: true })) {
    if (!resource.isDirectory()) continue;
    for (const name of readdirSync(join(HOOKS_DIR, resource.name)).sort()) {
      const dir = join(HOOKS_DIR, resource.name, name);
      const requestText = readFileSync(join(dir, "request.json"), "utf8");
      const request = JSON.parse(requestText) as HookRequest;
      const responseFile = join(dir, "response.json");
      out.push({
        resource: resource.name,
        name,
        dir,
        hook: request.finalizing ? "finalize" : "sync",
        requestText,
        request,
        responseText: existsSync(responseFile) ? readFileSync(responseFile, "utf8") : undefined,
      });
    }
  }
  return out;
}

/** How a response is stored: 2-space JSON and a final newline, so diffs stay readable. */
export function responseFileText(response: unknown): string {
  return `${JSON.stringify(response, null, 2)}\n`;
}

export function writeResponse(fixture: Fixture, text: string): void {
  writeFileSync(join(fixture.dir, "response.json"), text);
}

export const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === "1";
