// vitest globalSetup for the e2e suite: builds the control-plane binaries if needed (a first build takes
// many minutes on two cores; later runs about a second) and dbhooks itself (the tests run dist/main.js),
// before any test file starts. The bin folder reaches the workers through DBHOOKS_CONTROL_PLANE_BIN.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureControlPlaneBinaries } from "./control-plane.js";

export default async function setup(): Promise<void> {
  const build = spawnSync("npm", ["run", "build"], {
    cwd: fileURLToPath(new URL("../../../", import.meta.url)),
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  process.env.DBHOOKS_CONTROL_PLANE_BIN = await ensureControlPlaneBinaries();
}
