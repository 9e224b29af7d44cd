#!/usr/bin/env node
// The `dbhooks` command. The TypeScript is compiled to dist/ by `npm run build` (npm ci runs it too).
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("dbhooks: dist/ is missing; run `npm run build` first\n");
  process.exit(1);
}
const { run } = await import(entry.href);
process.exitCode = run(process.argv.slice(2));
