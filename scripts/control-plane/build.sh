#!/usr/bin/env bash
# Builds (once) the etcd, kube-apiserver and kube-controller-manager binaries that the e2e tests run,
# envtest-style (the controller manager only for its garbage collector),
# from the Go module proxy, and prints the directory holding them as the LAST line of stdout.
# Everything else goes to stderr.
#
# Versions are pinned in versions.env beside this script. Binaries, the generated wrapper
# modules' output and the Go caches live in a cache folder outside the repo:
#   ${DBHOOKS_CONTROL_PLANE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dbhooks/control-plane}
# A first run takes many minutes (kube-apiserver is big); later runs return at once.
# Safe to run concurrently: builds are serialised with flock (where available) and each
# result is built in a temporary folder and renamed into place.
#
# Needs: go (>= the go line of the pinned k8s.io/kubernetes go.mod), openssl (installed with
# apt-get when missing and running as root; the harness uses it for service-account keys).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=/dev/null  # versions.env only assigns KUBERNETES_VERSION and ETCD_VERSION
source "${SCRIPT_DIR}/versions.env"

: "${KUBERNETES_VERSION:?KUBERNETES_VERSION must be set in versions.env}"
: "${ETCD_VERSION:?ETCD_VERSION must be set in versions.env}"
: "${KUSTOMIZE_VERSION:?KUSTOMIZE_VERSION must be set in versions.env}"

CACHE_ROOT="${DBHOOKS_CONTROL_PLANE_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/dbhooks/control-plane}"
APISERVER_DIR="${CACHE_ROOT}/kube-apiserver-${KUBERNETES_VERSION}"
CONTROLLER_MANAGER_DIR="${CACHE_ROOT}/kube-controller-manager-${KUBERNETES_VERSION}"
ETCD_DIR="${CACHE_ROOT}/etcd-${ETCD_VERSION}"
KUSTOMIZE_DIR="${CACHE_ROOT}/kustomize-${KUSTOMIZE_VERSION}"
BIN_DIR="${CACHE_ROOT}/bin-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}-kustomize-${KUSTOMIZE_VERSION}"

log() {
  printf '[control-plane] %s\n' "$*" >&2
}

die() {
  log "ERROR: $*"
  exit 1
}

ready() {
  [[ -x "${BIN_DIR}/kube-apiserver" && -x "${BIN_DIR}/kube-controller-manager" && -x "${BIN_DIR}/etcd" && -x "${BIN_DIR}/kustomize" ]]
}

ensure_openssl() {
  if command -v openssl >/dev/null 2>&1; then
    return 0
  fi
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "openssl missing: installing it with apt-get"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssl >&2; then
      apt-get update -q >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssl >&2
    fi
  else
    die "openssl is required (apt-get install openssl)"
  fi
}

# Fast path: nothing to build.
if ready; then
  ensure_openssl
  printf '%s\n' "${BIN_DIR}"
  exit 0
fi

ensure_openssl
command -v go >/dev/null 2>&1 || die "go is required to build the control plane (Go toolchain not found on PATH)"

mkdir -p "${CACHE_ROOT}"

# Serialise concurrent builds; the renames below keep things consistent even without flock.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${CACHE_ROOT}/.build.lock"
  log "waiting for the build lock ${CACHE_ROOT}/.build.lock"
  flock 9
  if ready; then
    printf '%s\n' "${BIN_DIR}"
    exit 0
  fi
  # Holding the lock, no other build is running: temp folders left here were abandoned by killed runs.
  rm -rf -- "${CACHE_ROOT}"/.tmp-*
fi

# Go environment: caches inside the cache folder so reruns (and `rm -rf` of it) work.
export GOMODCACHE="${CACHE_ROOT}/go/mod"
export GOCACHE="${CACHE_ROOT}/go/build"
export GOFLAGS="-modcacherw -buildvcs=false -trimpath"
export GOTOOLCHAIN=local
export GOWORK=off
export CGO_ENABLED=0
export GO111MODULE=on

TMP_DIRS=()
cleanup() {
  local d
  for d in "${TMP_DIRS[@]+"${TMP_DIRS[@]}"}"; do
    rm -rf -- "${d}"
  done
}
trap cleanup EXIT

# Creates a temporary folder in the cache folder (same file system, so results can be renamed into
# place), removed on exit; its path is left in NEW_TMP (not printed: $(...) would lose TMP_DIRS).
NEW_TMP=""
new_tmp_dir() {
  NEW_TMP="$(mktemp -d "${CACHE_ROOT}/.tmp-$1.XXXXXX")"
  TMP_DIRS+=("${NEW_TMP}")
}

# Moves the freshly built folder $1 to $2 atomically; if another run got there first, keeps theirs.
install_dir() {
  local src="$1" dst="$2"
  if ! mv -T -- "${src}" "${dst}" 2>/dev/null; then
    [[ -d "${dst}" ]] || die "could not move ${src} to ${dst}"
    log "${dst} appeared meanwhile (concurrent build); keeping it"
  fi
}

# Reads the `go` directive of a go.mod file.
go_directive() {
  sed -nE 's/^go[[:space:]]+([0-9][0-9.]*)[[:space:]]*$/\1/p' "$1" | head -n 1
}

build_etcd() {
  if [[ -x "${ETCD_DIR}/etcd" ]]; then
    return 0
  fi
  local started=${SECONDS} work gomod goversion
  log "building etcd ${ETCD_VERSION} (go.etcd.io/etcd/server/v3)"
  new_tmp_dir "etcd-${ETCD_VERSION}"
  work="${NEW_TMP}"
  mkdir -p "${work}/src" "${work}/out"
  gomod="$(cd "${work}" && go mod download -json "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" | sed -nE 's/^[[:space:]]*"GoMod": "(.*)",?$/\1/p')"
  [[ -f "${gomod}" ]] || die "could not download go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
  goversion="$(go_directive "${gomod}")"
  (
    cd "${work}/src"
    go mod init dbhooks.local/control-plane/etcd >&2
    go mod edit -go="${goversion:-1.24}" -require="go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
    go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" >&2
    go build -ldflags "-s -w" -o "${work}/out/etcd" go.etcd.io/etcd/server/v3 >&2
  )
  "${work}/out/etcd" --version >&2
  install_dir "${work}/out" "${ETCD_DIR}"
  log "etcd built in $((SECONDS - started))s"
}

build_kustomize() {
  if [[ -x "${KUSTOMIZE_DIR}/kustomize" ]]; then
    return 0
  fi
  local started=${SECONDS} work
  log "building kustomize ${KUSTOMIZE_VERSION}"
  new_tmp_dir "kustomize-${KUSTOMIZE_VERSION}"
  work="${NEW_TMP}"
  mkdir -p "${work}/out"
  (cd "${work}" && GOBIN="${work}/out" go install "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}" >&2)
  "${work}/out/kustomize" version >&2
  install_dir "${work}/out" "${KUSTOMIZE_DIR}"
  log "kustomize built in $((SECONDS - started))s"
}

# build_kube_binary NAME DIR: k8s.io/kubernetes/cmd/NAME into DIR/NAME.
build_kube_binary() {
  local name="$1" dir="$2"
  if [[ -x "${dir}/${name}" ]]; then
    return 0
  fi
  local started=${SECONDS} work gomod goversion minor_patch major minor staging_version
  local -a edits=() staging=() godebugs=()
  [[ "${KUBERNETES_VERSION}" =~ ^v1\.([0-9]+)\.([0-9]+)(-.*)?$ ]] ||
    die "KUBERNETES_VERSION must look like v1.MINOR.PATCH, got ${KUBERNETES_VERSION}"
  major=1
  minor="${BASH_REMATCH[1]}"
  minor_patch="${KUBERNETES_VERSION#v1.}"
  staging_version="v0.${minor_patch}"

  log "building ${name} ${KUBERNETES_VERSION} (staging modules at ${staging_version})"
  new_tmp_dir "${name}-${KUBERNETES_VERSION}"
  work="${NEW_TMP}"
  mkdir -p "${work}/src" "${work}/out"
  gomod="$(cd "${work}" && go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -nE 's/^[[:space:]]*"GoMod": "(.*)",?$/\1/p')"
  [[ -f "${gomod}" ]] || die "could not download k8s.io/kubernetes@${KUBERNETES_VERSION}"
  goversion="$(go_directive "${gomod}")"

  # Every `k8s.io/<m> => ./staging/src/k8s.io/<m>` replace of the real go.mod (single-line or block form).
  mapfile -t staging < <(sed -nE 's#^[[:space:]]*(replace[[:space:]]+)?(k8s\.io/[A-Za-z0-9._/-]+)[[:space:]]+=>[[:space:]]+\./staging/.*#\2#p' "${gomod}")
  ((${#staging[@]} > 0)) || die "found no staging replace directives in ${gomod}"
  # Its godebug settings (single-line `godebug k=v` or a `godebug ( ... )` block).
  mapfile -t godebugs < <(awk '
    /^godebug[[:space:]]*\(/ { inblock = 1; next }
    inblock && /^\)/ { inblock = 0; next }
    inblock { gsub(/^[[:space:]]+|[[:space:]]+$/, ""); if ($0 != "" && $0 !~ /^\/\//) print; next }
    /^godebug[[:space:]]+[^(]/ { sub(/^godebug[[:space:]]+/, ""); gsub(/[[:space:]]+$/, ""); print }
  ' "${gomod}")
  log "k8s.io/kubernetes go.mod: go ${goversion}, ${#staging[@]} staging modules, godebug: ${godebugs[*]:-none}"

  edits+=("-go=${goversion:-1.24}" "-require=k8s.io/kubernetes@${KUBERNETES_VERSION}")
  local m g
  for m in "${staging[@]}"; do
    edits+=("-replace=${m}=${m}@${staging_version}")
  done
  for g in "${godebugs[@]+"${godebugs[@]}"}"; do
    edits+=("-godebug=${g}")
  done

  local pkg=k8s.io/component-base/version
  local ldflags="-s -w -X ${pkg}.gitVersion=${KUBERNETES_VERSION} -X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor}"
  ldflags+=" -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  (
    cd "${work}/src"
    go mod init "dbhooks.local/control-plane/${name}" >&2
    go mod edit "${edits[@]}"
    go get "k8s.io/kubernetes/cmd/${name}@${KUBERNETES_VERSION}" >&2
    log "compiling ${name} (this is the long part)"
    go build -ldflags "${ldflags}" -o "${work}/out/${name}" "k8s.io/kubernetes/cmd/${name}" >&2
  )
  "${work}/out/${name}" --version >&2
  install_dir "${work}/out" "${dir}"
  log "${name} built in $((SECONDS - started))s"
}

build_etcd
build_kube_binary kube-apiserver "${APISERVER_DIR}"
# Shares the Go build cache with kube-apiserver, so it compiles in a fraction of the time.
build_kube_binary kube-controller-manager "${CONTROLLER_MANAGER_DIR}"
build_kustomize

# The bin folder holds links to the two binaries of this pair of versions.
new_tmp_dir bin
bin_tmp="${NEW_TMP}"
ln -s "${ETCD_DIR}/etcd" "${bin_tmp}/etcd"
ln -s "${APISERVER_DIR}/kube-apiserver" "${bin_tmp}/kube-apiserver"
ln -s "${CONTROLLER_MANAGER_DIR}/kube-controller-manager" "${bin_tmp}/kube-controller-manager"
ln -s "${KUSTOMIZE_DIR}/kustomize" "${bin_tmp}/kustomize"
chmod 755 "${bin_tmp}"
install_dir "${bin_tmp}" "${BIN_DIR}"
ready || die "binaries missing in ${BIN_DIR} after the build"
log "control plane binaries ready in ${BIN_DIR}"
printf '%s\n' "${BIN_DIR}"
