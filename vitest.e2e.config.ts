import { defineConfig } from "vitest/config";

// The e2e suite: real etcd, kube-apiserver and kube-controller-manager (built once by
// scripts/control-plane/build.sh into a cache outside the repo). The real-Metacontroller scenario runs
// only when METACONTROLLER_BIN points at a binary built by hand.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    exclude: process.env.METACONTROLLER_BIN ? [] : ["test/e2e/lifecycle.metacontroller.e2e.test.ts"],
    globalSetup: ["test/e2e/harness/global-setup.ts"],
    pool: "forks",
    // Each file starts its own control plane; two at once is all two cores take.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
