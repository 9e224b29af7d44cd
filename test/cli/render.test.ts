// The real `dbhooks` command, run as a user runs it, against the sync hook answering over HTTP.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { loadResources } from "../../src/resources/registry.js";
import { testApp } from "../support/app.js";
import { FIXTURE_CREDENTIALS_KEY } from "../support/fixtures.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const EXAMPLES = join(ROOT, "manifests/examples");
const examples = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => join(EXAMPLES, f));
/** The route segment of each served kind: Database -> database. */
const routeOf = new Map(loadResources().map((r) => [r.crd.kind, r.name]));

function dbhooks(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [join(ROOT, "bin/dbhooks.js"), ...args], {
    input,
    encoding: "utf8",
    env: { ...process.env, DBHOOKS_CREDENTIALS_KEY: FIXTURE_CREDENTIALS_KEY },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  // The command runs the compiled code, as an installed package does.
  const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
}, 120_000);

describe("dbhooks render", () => {
  const { app } = testApp();

  it("prints, for every example, exactly the children the sync hook returns with nothing observed", async () => {
    const rendered = dbhooks(["render", ...examples]);
    expect(rendered.stderr).toBe("");
    expect(rendered.status).toBe(0);
    const expected: string[] = [];
    for (const file of examples) {
      const parent = parse(readFileSync(file, "utf8"));
      const answer = await request(app)
        .post(`/${routeOf.get(parent.kind)}/sync`)
        .set("Content-Type", "application/json")
        .send({ parent, children: {} });
      expect(answer.status).toBe(200);
      expected.push(
        ...answer.body.children.map((c: unknown) =>
          stringify(c, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd(),
        ),
      );
    }
    expect(rendered.stdout).toBe(`${expected.join("\n---\n")}\n`);
    const documents = parseAllDocuments(rendered.stdout).map((d) => d.toJS());
    expect(documents.every((d) => d.metadata.namespace === "default")).toBe(true);
    expect(documents.some((d) => "ownerReferences" in d.metadata || "status" in d)).toBe(false);
  });

  it("reads stdin for -, JSON too, and prints the status as comments with --status", () => {
    const json = JSON.stringify(parse(readFileSync(examples[0] ?? "", "utf8")));
    const rendered = dbhooks(["render", "--status", "-"], json);
    expect(rendered.status).toBe(0);
    expect(rendered.stdout).toMatch(
      /^# Database default\/\w+: computed with nothing observed yet\n# status:\n# {3}phase: Pending/,
    );
    expect(parseAllDocuments(rendered.stdout).map((d) => d.toJS().kind)).toContain("StatefulSet");
  });

  it("fails with the hook's message and exit code 1 on an invalid Database or WebService", () => {
    const dir = mkdtempSync(join(tmpdir(), "dbhooks-render-"));
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      "apiVersion: dbhooks.io/v1alpha1\nkind: Database\nmetadata:\n  name: bad\nspec:\n  engine: postgresql\n  version: '16'\n  replicas: 9\n  storage:\n    size: 1Gi\n",
    );
    const rendered = dbhooks(["render", file]);
    expect(rendered.status).toBe(1);
    expect(rendered.stderr).toContain("spec.replicas: Invalid value: must be <= 7");
    expect(rendered.stdout).toBe("");
    const webService = dbhooks(
      ["render", "-"],
      "apiVersion: dbhooks.io/v1alpha1\nkind: WebService\nmetadata:\n  name: web\nspec:\n  image: nginx\n  replicas: 0\n",
    );
    expect(webService.status).toBe(1);
    expect(webService.stderr).toContain("WebService web: spec.replicas: Invalid value: must be >= 1");
  });

  it("refuses other kinds, bad YAML, missing files and unknown options", () => {
    expect(dbhooks(["render", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")).toMatchObject(
      { status: 1, stderr: expect.stringContaining("not rendered") },
    );
    expect(dbhooks(["render", "-"], "a: [1, 2\n")).toMatchObject({
      status: 1,
      stderr: expect.stringContaining("document 1"),
    });
    expect(dbhooks(["render", "/nonexistent.yaml"])).toMatchObject({
      status: 1,
      stderr: expect.stringContaining("ENOENT"),
    });
    expect(dbhooks(["render", "--nope", "x"]).status).toBe(2);
    expect(dbhooks(["frobnicate"]).status).toBe(2);
  });
});
