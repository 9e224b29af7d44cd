// The PostgreSQL replication script, a ConfigMap key. Everything pod-specific (ordinal, data directory,
// primary host and port, credentials) comes from the environment, so the same text runs in every pod and in
// the tests against a real server, where only the paths, host and port differ.

/** Where the bootstrap script reads the replication user from; the role is created on the primary. */
export const REPLICATION_USER = "replicator";

/**
 * Init container of every pod. Pod 0 is the primary: nothing to do (the image's entrypoint runs initdb on
 * an empty volume). Pods 1..n-1 copy the primary once, with pg_basebackup -R into an empty data directory,
 * and then start as hot standbys that stream from it; a pod restarted with its data resumes streaming
 * without a new copy. Data on a replica's volume that is not a standby (a database created before
 * replication existed, or a standby promoted by hand) is never overwritten: the pod stops and says why.
 */
export const BOOTSTRAP_STANDBY = `#!/bin/bash
# dbhooks: turn pods 1..n-1 of a PostgreSQL StatefulSet into hot standbys of pod 0 (see the README).
set -euo pipefail

ordinal="\${HOSTNAME##*-}"
: "\${PGDATA:?PGDATA must name the data directory}"
primary_host="\${PRIMARY_HOST:?PRIMARY_HOST must name the primary}"
primary_port="\${PRIMARY_PORT:-5432}"
replication_user="\${REPLICATION_USER:-${REPLICATION_USER}}"
wait_seconds="\${PRIMARY_WAIT_SECONDS:-600}"

log() { printf '%s bootstrap-standby: %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }

if [ "$ordinal" = 0 ]; then
  log "pod 0 is the primary: nothing to copy"
  exit 0
fi
if [ -s "$PGDATA/PG_VERSION" ]; then
  if [ -e "$PGDATA/standby.signal" ]; then
    log "$PGDATA holds a standby: resuming replication without a new base backup"
    exit 0
  fi
  log "ERROR: $PGDATA holds a database that is not a standby of pod 0 (created before replication, or promoted by hand)."
  log "It is left untouched. To make this pod a standby again, delete its PersistentVolumeClaim and the pod."
  exit 1
fi
if [ -d "$PGDATA" ] && [ -n "$(ls -A "$PGDATA")" ]; then
  log "ERROR: $PGDATA is not empty and holds no database; it is left untouched"
  exit 1
fi

log "waiting for the primary at $primary_host:$primary_port"
deadline=$((SECONDS + wait_seconds))
until pg_isready -q -h "$primary_host" -p "$primary_port" -t 5; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    log "ERROR: the primary did not answer within $wait_seconds seconds"
    exit 1
  fi
  sleep 2
done

# The replication role, as the superuser the image created on the primary: idempotent, and it also
# serves Databases whose primary was initialised before replication existed.
log "ensuring the replication role $replication_user on the primary"
# The password reaches psql through the environment, never its command line.
export REPLICATION_USER="$replication_user"
PGPASSWORD="$POSTGRES_PASSWORD" psql -X -q -v ON_ERROR_STOP=1 -h "$primary_host" -p "$primary_port" \\
  -U "$POSTGRES_USER" -d postgres <<'SQL'
\\set role \`printf %s "$REPLICATION_USER"\`
\\set password \`printf %s "$REPLICATION_PASSWORD"\`
SELECT format('CREATE ROLE %I', :'role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role')
\\gexec
ALTER ROLE :"role" WITH LOGIN REPLICATION NOSUPERUSER PASSWORD :'password';
SQL

# Copy into a sibling directory and rename it only once complete: an interrupted copy never looks like data.
staging="\${PGDATA%/}.bootstrap"
rm -rf "$staging"
mkdir -p "$(dirname "$PGDATA")"
log "copying the primary into $PGDATA (pg_basebackup -R)"
PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup --pgdata="$staging" --write-recovery-conf \\
  --wal-method=stream --checkpoint=fast --no-password \\
  --dbname="host=$primary_host port=$primary_port user=$replication_user application_name=$HOSTNAME"
if [ -d "$PGDATA" ]; then rmdir "$PGDATA"; fi
mv "$staging" "$PGDATA"
log "standby ready: it streams from $primary_host:$primary_port"
`;
