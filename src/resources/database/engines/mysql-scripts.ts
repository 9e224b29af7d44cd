// The MySQL replication scripts, ConfigMap keys. Pod-specific values (ordinal, primary host, credentials)
// come from the environment; the text is the same in every pod.

export const REPLICATION_USER = "replicator";

// Shared by the scripts: the pod's ordinal and logging; SQL string literals (sql_string doubles single
// quotes, and the sessions that use it turn on NO_BACKSLASH_ESCAPES, so a backslash needs nothing); and a
// client option file with a password, which reaches the client through process substitution (as in the
// image's entrypoint), never through the command line or the deprecated MYSQL_PWD.
const BASE = `ordinal="\${HOSTNAME##*-}"
log() { printf '%s %s: %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "\${0##*/}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }`;
const SQL_STRING = `q="'"
sql_string() { printf "'%s'" "\${1//$q/$q$q}"; }`;
const CLIENT_PASSWORD = `client_password() { printf '[client]\\npassword="%s"\\n' "$1"; }`;

/**
 * The server container's command: the image's entrypoint and mysqld, with this pod's identity. server_id
 * is the ordinal + 1 (0 would refuse to replicate); replicas run read_only and super_read_only, so only
 * the replication applier writes to them.
 */
export const MYSQL_RUN = `#!/bin/bash
# dbhooks: run mysqld through the image's entrypoint with this pod's replication identity (see the README).
set -euo pipefail
${BASE}

args=(--server-id="$((ordinal + 1))" --report-host="$HOSTNAME.\${MEMBER_DOMAIN:?MEMBER_DOMAIN must be set}")
role="primary"
if [ "$ordinal" != 0 ]; then
  args+=(--read-only=ON --super-read-only=ON)
  role="read-only replica"
fi
log "server_id $((ordinal + 1)), $role"
exec docker-entrypoint.sh mysqld "\${args[@]}"
`;

/**
 * Init container of every pod. Pod 0: nothing. Pods 1..n-1 with an empty volume: make sure the primary
 * has the clone plugin and the replication user, clone it with CLONE INSTANCE ... DATA DIRECTORY from a
 * scratch server, record the replication source (GTID auto-position) in the cloned data with a second
 * short-lived server, then move the data into place: the marker first, the mysql schema last, so a
 * directory with a mysql schema is always complete. The server then starts replicating by itself, after
 * every restart too. Data that did not come from such a clone is never overwritten.
 */
export const MYSQL_CLONE = `#!/bin/bash
# dbhooks: pods 1..n-1 of a MySQL StatefulSet clone pod 0 once, then replicate from it (see the README).
set -euo pipefail
${BASE}
${SQL_STRING}
${CLIENT_PASSWORD}

datadir="\${MYSQL_DATADIR:-/var/lib/mysql}"
primary_host="\${PRIMARY_HOST:?PRIMARY_HOST must name the primary}"
primary_port="\${PRIMARY_PORT:-3306}"
replication_user="\${REPLICATION_USER:-${REPLICATION_USER}}"
wait_seconds="\${PRIMARY_WAIT_SECONDS:-600}"
marker=".dbhooks-replica"
work="$datadir/.dbhooks-clone"

on_primary() {
  mysql --defaults-extra-file=<(client_password "$MYSQL_ROOT_PASSWORD") -h "$primary_host" -P "$primary_port" \\
    -uroot --batch --skip-column-names "$@"
}
# start_server <datadir> [option...]: a socket-only server in the background, for this script alone.
start_server() {
  local dir="$1"
  shift
  mysqld --no-defaults --datadir="$dir" --socket="$work/mysqld.sock" --pid-file="$work/mysqld.pid" \\
    --skip-networking --mysqlx=OFF --log-error="$work/server.log" "$@" --daemonize ||
    { cat "$work/server.log" >&2; die "cannot start a server on $dir"; }
}
# on_local <root password> [mysql option...]
on_local() {
  local password="$1"
  shift
  mysql --defaults-extra-file=<(client_password "$password") --socket="$work/mysqld.sock" -uroot \\
    --batch --skip-column-names "$@"
}
stop_server() {
  mysqladmin --defaults-extra-file=<(client_password "$1") --socket="$work/mysqld.sock" -uroot shutdown
}

if [ "$ordinal" = 0 ]; then
  log "pod 0 is the primary: nothing to clone"
  exit 0
fi
if [ -d "$datadir/mysql" ]; then
  if [ -e "$datadir/$marker" ]; then
    log "$datadir holds a replica: replication resumes when the server starts"
    exit 0
  fi
  die "$datadir holds a database that was not cloned from pod 0 (created before replication?). It is left untouched; to make this pod a replica, delete its PersistentVolumeClaim and the pod."
fi
if [ -e "$datadir/$marker" ]; then
  log "removing what an interrupted clone left"
  find "$datadir" -mindepth 1 -maxdepth 1 ! -name lost+found -exec rm -rf {} +
elif [ -n "$(find "$datadir" -mindepth 1 -maxdepth 1 ! -name lost+found ! -name .dbhooks-clone -print -quit)" ]; then
  die "$datadir is not empty and holds no database; it is left untouched"
fi
rm -rf "$work"
mkdir -p "$work"

log "waiting for the primary at $primary_host:$primary_port"
deadline=$((SECONDS + wait_seconds))
until mysqladmin --connect-timeout=5 -h "$primary_host" -P "$primary_port" ping >/dev/null 2>&1; do
  if [ "$SECONDS" -ge "$deadline" ]; then die "the primary did not answer within $wait_seconds seconds"; fi
  sleep 2
done

log "preparing the primary: the clone plugin and the replication user"
if [ "$(on_primary -e "SELECT COUNT(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'clone'")" = 0 ]; then
  # Installed at run time, not with plugin-load-add: it is then recorded in mysql.plugin, and a server
  # upgrade cannot trip over it. Not written to the binary log: the replicas get it with their clone.
  on_primary -e "SET SESSION sql_log_bin = 0; INSTALL PLUGIN clone SONAME 'mysql_clone.so'"
fi
on_primary <<SQL
SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES');
CREATE USER IF NOT EXISTS $(sql_string "$replication_user")@'%' IDENTIFIED BY $(sql_string "$REPLICATION_PASSWORD");
ALTER USER $(sql_string "$replication_user")@'%' IDENTIFIED BY $(sql_string "$REPLICATION_PASSWORD");
GRANT REPLICATION SLAVE, BACKUP_ADMIN ON *.* TO $(sql_string "$replication_user")@'%';
SQL

log "cloning $primary_host:$primary_port through a scratch server"
mysqld --no-defaults --initialize-insecure --datadir="$work/scratch" --log-error="$work/server.log" ||
  { cat "$work/server.log" >&2; die "cannot initialise the scratch server"; }
start_server "$work/scratch" --plugin-load-add=mysql_clone.so
on_local "" <<SQL
SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES');
SET GLOBAL clone_valid_donor_list = $(sql_string "$primary_host:$primary_port");
CLONE INSTANCE FROM $(sql_string "$replication_user")@$(sql_string "$primary_host"):$primary_port
  IDENTIFIED BY $(sql_string "$REPLICATION_PASSWORD") DATA DIRECTORY = $(sql_string "$work/data");
SQL
stop_server ""

# The cloned data carries the primary's users and its gtid_executed; auto-position starts from there.
log "recording the replication source in the cloned data"
start_server "$work/data" --server-id="$((ordinal + 1))" --skip-replica-start --gtid-mode=ON \\
  --enforce-gtid-consistency=ON
on_local "$MYSQL_ROOT_PASSWORD" <<SQL
SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_BACKSLASH_ESCAPES');
CHANGE REPLICATION SOURCE TO SOURCE_HOST = $(sql_string "$primary_host"), SOURCE_PORT = $primary_port,
  SOURCE_USER = $(sql_string "$replication_user"), SOURCE_PASSWORD = $(sql_string "$REPLICATION_PASSWORD"),
  SOURCE_AUTO_POSITION = 1, SOURCE_SSL = 1, GET_SOURCE_PUBLIC_KEY = 1,
  SOURCE_CONNECT_RETRY = 10, SOURCE_RETRY_COUNT = 86400;
SQL
stop_server "$MYSQL_ROOT_PASSWORD"

log "moving the clone into $datadir"
touch "$work/data/$marker"
mv "$work/data/$marker" "$datadir/"
find "$work/data" -mindepth 1 -maxdepth 1 ! -name mysql -exec mv -t "$datadir/" {} +
mv "$work/data/mysql" "$datadir/"
rm -rf "$work"
log "replica ready: it replicates from $primary_host:$primary_port once the server starts"
`;

/**
 * Readiness. Pod 0: the server answers. A replica: it answers and its applier runs, with the receiver
 * connected or retrying (a replica whose primary is briefly away still serves reads; one whose
 * replication stopped on an error does not).
 */
export const MYSQL_READY = `#!/bin/bash
# dbhooks: readiness of a MySQL pod (see the README).
set -euo pipefail
${BASE}
${CLIENT_PASSWORD}

query() {
  mysql --defaults-extra-file=<(client_password "$MYSQL_ROOT_PASSWORD") -h 127.0.0.1 -P 3306 -uroot \\
    --batch --skip-column-names -e "$1"
}
if [ "$ordinal" = 0 ]; then
  query "SELECT 1" >/dev/null
  exit 0
fi
state="$(query "SELECT CONCAT(c.SERVICE_STATE, '/', a.SERVICE_STATE) FROM performance_schema.replication_connection_status c JOIN performance_schema.replication_applier_status a USING (CHANNEL_NAME) WHERE CHANNEL_NAME = ''")"
case "$state" in
  ON/ON | CONNECTING/ON) exit 0 ;;
  *) die "replication receiver/applier: \${state:-not configured}" ;;
esac
`;
