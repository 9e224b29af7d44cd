// No container engine here, so the image cannot be built in CI. This checks what can be checked: every
// file a stage copies from the build context exists, and the CMD runs what `npm run build` produces.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;
const lines = readFileSync(join(ROOT, "Dockerfile"), "utf8")
  .split("\n")
  .map((l) => l.trim());
const dockerignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").filter(Boolean);

describe("Dockerfile", () => {
  it("has a build stage, a production-dependencies stage and a final stage", () => {
    const stages = lines.filter((l) => l.startsWith("FROM "));
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(lines).toContain("RUN npm ci --ignore-scripts --no-audit --no-fund");
    expect(lines.some((l) => l.startsWith("RUN npm ci --omit=dev"))).toBe(true);
    expect(lines.some((l) => l.startsWith("HEALTHCHECK"))).toBe(false);
  });

  it("copies only files that exist and are not ignored", () => {
    const copies = lines.filter((l) => l.startsWith("COPY ") && !l.includes("--from="));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const sources = copy.split(/\s+/).slice(1, -1);
      for (const source of sources) {
        expect(existsSync(join(ROOT, source)), source).toBe(true);
        expect(dockerignore, source).not.toContain(source.replace(/\/$/, ""));
      }
    }
  });

  it("runs as a numeric non-root user the exec-form CMD that npm run build produces", () => {
    const user = lines.filter((l) => l.startsWith("USER ")).at(-1);
    expect(user).toMatch(/^USER [1-9]\d*:[1-9]\d*$/);
    const cmd = lines.filter((l) => l.startsWith("CMD ")).at(-1);
    expect(cmd).toBe('CMD ["node", "dist/main.js"]');
    const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
    expect(build.status, build.stderr).toBe(0);
    expect(existsSync(join(ROOT, "dist/main.js"))).toBe(true);
    // The runtime stage copies dist/ and the CRD the service reads at start.
    expect(lines).toContain("COPY --from=build /app/dist ./dist");
    expect(lines).toContain("COPY --from=build /app/manifests/crds ./manifests/crds");
  }, 120_000);
});
