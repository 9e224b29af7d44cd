// vitest globalSetup for the e2e suite: makes sure etcd and kube-apiserver are built (a first build
// takes 20+ minutes on two cores; later runs about a second) before any test file starts, and hands
// the bin folder to the test workers through DBHOOKS_CONTROL_PLANE_BIN.
import { ensureControlPlaneBinaries } from "./control-plane.js";

export default async function setup(): Promise<void> {
  const binDir = await ensureControlPlaneBinaries();
  process.env.DBHOOKS_CONTROL_PLANE_BIN = binDir;
}
