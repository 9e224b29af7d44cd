// The MongoDB replica set scripts, ConfigMap keys. Pod-specific values come from the environment.

/** Init container: mongod refuses a key file that its group or others may read, or that it cannot read. */
export const MONGODB_KEYFILE = `#!/bin/bash
# dbhooks: install the replica set key where mongod accepts it: owned by this user (999), mode 0400.
set -euo pipefail
src="\${KEYFILE_SOURCE:?KEYFILE_SOURCE must name the key in the Secret volume}"
dst="\${KEYFILE:?KEYFILE must name the installed key}"
rm -f "$dst"
cp "$src" "$dst"
chmod 0400 "$dst"
`;

/**
 * The server container's command. Why a wrapper and not a postStart hook or an init container: the set can
 * only be initiated once mongod runs (so not in an init container), and the membership steps may have to
 * wait for other pods for minutes, which a postStart hook would do while blocking the container's start
 * and killing it on failure. Here mongod (through the image's entrypoint, which creates the root user on
 * pod 0's first start and strips --replSet/--keyFile while it does) is this script's child and gets its
 * signals; a background loop runs mongodb-replset.js until this pod's part is done, and never touches
 * mongod.
 */
export const MONGODB_RUN = `#!/bin/bash
# dbhooks: mongod as a member of the replica set (see the README).
set -euo pipefail

ordinal="\${HOSTNAME##*-}"
dbpath="\${MONGO_DBPATH:-/data/db}"
marker="$dbpath/.dbhooks-member"
scripts="$(dirname "$0")"
: "\${REPLICA_SET:?REPLICA_SET must name the replica set}" "\${KEYFILE:?KEYFILE must name the key file}"
log() { printf '%s mongodb-run: %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }

# mongodb-replset.js authenticates as root; the entrypoint must see the variables only on pod 0.
export ROOT_USERNAME="\${MONGO_INITDB_ROOT_USERNAME:-}" ROOT_PASSWORD="\${MONGO_INITDB_ROOT_PASSWORD:-}"
if [ "$ordinal" != 0 ]; then
  # Pods 1..n-1 start empty and get everything, users included, by initial sync from the set, which
  # replaces what a volume holds: data that a member did not start with is never handed to it.
  if [ -e "$dbpath/WiredTiger" ] && [ ! -e "$marker" ]; then
    log "ERROR: $dbpath holds data that did not start as a member of $REPLICA_SET (created before replication?)."
    log "It is left untouched; to make this pod a member, delete its PersistentVolumeClaim and the pod."
    exit 1
  fi
  touch "$marker"
  unset MONGO_INITDB_ROOT_USERNAME MONGO_INITDB_ROOT_PASSWORD
fi

docker-entrypoint.sh "$@" --replSet "$REPLICA_SET" --keyFile "$KEYFILE" &
server=$!
signalled=""
trap 'signalled=1; kill -TERM "$server" 2>/dev/null || true' TERM INT

membership() {
  until mongosh --quiet --norc --eval 'db.adminCommand({ ping: 1 })' >/dev/null 2>&1; do sleep 2; done
  until mongosh --nodb --quiet --norc --file "$scripts/mongodb-replset.js"; do sleep 5; done
  log "membership settled"
}
membership &
helper=$!

# A trapped signal interrupts wait while mongod is still shutting down: wait again, for its own status.
status=0
while :; do
  signalled=""
  if wait "$server"; then status=0; else status=$?; fi
  if [ -z "$signalled" ]; then break; fi
done
kill "$helper" 2>/dev/null || true
exit "$status"
`;

/**
 * Replica set membership, run with `mongosh --nodb --file` by mongodb-run.sh until it exits 0. Pod 0
 * initiates the set exactly once, with itself: the StatefulSet is OrderedReady (immutable on existing
 * StatefulSets), so pod 1 is only created once pod 0 is ready, which for MongoDB means PRIMARY or
 * SECONDARY; all members at initiation would wait forever. It never initiates when another pod already
 * belongs to a set (pod 0 lost its volume): the set adds it back and it syncs. Every other pod adds
 * itself, one voting member per reconfiguration as MongoDB requires; pod 0 removes the members at or
 * above REPLICAS once they are down (REPLICAS changes with spec.replicas and rolls the pods). Member k is
 * `<statefulset>-k.<headless service domain>:27017` with _id k; pod 0 has priority 2, so it takes the
 * primary back whenever it is up and caught up: the primary Service selects it.
 *
 * Only plain loops call the shell's API (mongosh cannot await inside callbacks of map or filter).
 */
export const MONGODB_REPLSET = `// dbhooks: replica set membership of this pod (see mongodb-run.sh and the README).
// Exit 0: this pod's part is done. Exit 1: try again later.
(() => {
  const env = process.env;
  const NOT_YET_INITIALIZED = 94;
  const pod = env.HOSTNAME;
  const statefulSet = pod.slice(0, pod.lastIndexOf("-"));
  const ordinal = Number(pod.slice(pod.lastIndexOf("-") + 1));
  const desired = Number(env.REPLICAS);
  const setName = env.REPLICA_SET;
  const port = env.MONGO_PORT || "27017";
  const member = (k) => \`\${statefulSet}-\${k}.\${env.MEMBER_DOMAIN}:\${port}\`;
  const log = (message) => print(\`\${new Date().toISOString()} mongodb-replset \${setName}: \${message}\`);

  function run(admin, command) {
    try {
      return admin.runCommand(command);
    } catch (error) {
      return { ok: 0, code: error.code, codeName: error.codeName, errmsg: error.message };
    }
  }

  function open(uri, authenticate) {
    const admin = new Mongo(uri).getDB("admin");
    if (authenticate) admin.auth(env.ROOT_USERNAME, env.ROOT_PASSWORD);
    return admin;
  }

  function reconfigure(admin, config, members, force) {
    const next = { ...config, members, version: config.version + 1 };
    const result = run(admin, force ? { replSetReconfig: next, force: true } : { replSetReconfig: next });
    const hosts = members.map((m) => m.host).join(", ");
    log(result.ok ? \`members now \${hosts}\${force ? " (forced)" : ""}\` : \`reconfig failed: \${result.errmsg}\`);
  }

  /** A pod other than 0 that already belongs to a set, if any answers. */
  function memberOfASet() {
    for (let k = 1; k < desired; k += 1) {
      try {
        const uri = \`mongodb://\${member(k)}/?directConnection=true&serverSelectionTimeoutMS=3000&connectTimeoutMS=3000\`;
        const hello = open(uri, false).runCommand({ hello: 1 });
        if (hello.setName) return member(k);
      } catch (error) {
        // Not there (yet): it belongs to nothing.
      }
    }
    return undefined;
  }

  function removeGone(admin, status) {
    const { config } = run(admin, { replSetGetConfig: 1 });
    const gone = config.members.filter((m) => m._id >= desired);
    if (gone.length === 0) return true;
    const healthy = new Set(status.members.filter((m) => m.health === 1).map((m) => m._id));
    const running = gone.filter((m) => healthy.has(m._id));
    if (running.length > 0) {
      log(\`waiting for \${running.map((m) => m.host).join(", ")} to stop before removing it\`);
      return false;
    }
    const kept = config.members.filter((m) => m._id < desired);
    if (status.myState === 1) {
      reconfigure(admin, config, config.members.filter((m) => m._id !== gone[0]._id), false);
      return false;
    }
    const voters = config.members.filter((m) => m.votes !== 0).length;
    const healthyKept = kept.filter((m) => m.votes !== 0 && healthy.has(m._id)).length;
    if (healthyKept * 2 <= voters) {
      // The members that are gone still count, so no primary can be elected to remove them: only a
      // forced reconfiguration, run here on a member that stays, can.
      reconfigure(admin, config, kept, true);
      return false;
    }
    log("waiting for a primary to remove the members that are gone");
    return false;
  }

  function primaryPod() {
    const admin = open(\`mongodb://127.0.0.1:\${port}/?directConnection=true\`, true);
    const status = run(admin, { replSetGetStatus: 1 });
    if (status.ok) return removeGone(admin, status);
    if (status.code !== NOT_YET_INITIALIZED) {
      log(\`not ready: \${status.errmsg}\`);
      return false;
    }
    const holder = memberOfASet();
    if (holder) {
      log(\`\${holder} already belongs to a set: not initiating, waiting to be added back\`);
      return false;
    }
    const members = [{ _id: 0, host: member(0), priority: 2 }];
    const result = run(admin, { replSetInitiate: { _id: setName, members } });
    log(result.ok ? \`initiated with \${member(0)}\` : \`initiate failed: \${result.errmsg}\`);
    return false;
  }

  function otherPod() {
    const seeds = [];
    for (let k = 0; k < desired; k += 1) if (k !== ordinal) seeds.push(member(k));
    const uri = \`mongodb://\${seeds.join(",")}/?replicaSet=\${setName}&serverSelectionTimeoutMS=10000\`;
    const admin = open(uri, true);
    const result = run(admin, { replSetGetConfig: 1 });
    if (!result.ok) {
      log(\`no primary to add \${member(ordinal)}: \${result.errmsg}\`);
      return false;
    }
    const { config } = result;
    if (config.members.some((m) => m.host === member(ordinal))) return true;
    const others = config.members.filter((m) => m._id !== ordinal);
    reconfigure(admin, config, [...others, { _id: ordinal, host: member(ordinal), priority: 1 }], false);
    return false;
  }

  let done = false;
  try {
    done = ordinal === 0 ? primaryPod() : otherPod();
  } catch (error) {
    log(\`will retry: \${error.message}\`);
  }
  quit(done ? 0 : 1);
})();
`;

/** Readiness: this member is PRIMARY or SECONDARY. hello needs no authentication. */
export const MONGODB_READY_EVAL =
  "const hello = db.adminCommand({ hello: 1 }); quit(hello.isWritablePrimary || hello.secondary ? 0 : 1)";
