#!/usr/bin/env bash
# The test entry point (`npm test`): on a fresh machine it installs the system programs the suite
# drives when they are missing, then runs vitest with the arguments given (`npm test -- test/x.test.ts`).
#   chromium  the browser tools (playwright-core never downloads a browser; AGENTD_CHROMIUM names another)
#   firefox-esr  the web UI's Firefox test (puppeteer-core, WebDriver BiDi; AGENTD_FIREFOX names another)
#   rg        the glob and grep tools (ripgrep)
#   bwrap     the isolating sandbox provider (bubblewrap)
#   git, tar  the git and file-archive routes
#   unzip     reads back the trajectory zips the server writes (unzip -t, zipinfo)
#   postgresql, redis-server  the engines of a scaled-out deployment (see "Engines" below)
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
if [[ -z ${AGENTD_CHROMIUM:-} ]] && ! command -v chromium >/dev/null 2>&1; then missing+=(chromium); fi
if [[ -z ${AGENTD_FIREFOX:-} ]] && ! command -v firefox-esr >/dev/null 2>&1; then missing+=(firefox-esr); fi
if ! command -v rg >/dev/null 2>&1; then missing+=(ripgrep); fi
if ! command -v bwrap >/dev/null 2>&1; then missing+=(bubblewrap); fi
if ! command -v git >/dev/null 2>&1; then missing+=(git); fi
if ! command -v tar >/dev/null 2>&1; then missing+=(tar); fi
if ! command -v unzip >/dev/null 2>&1; then missing+=(unzip); fi
# Debian keeps PostgreSQL's server programs off PATH, under /usr/lib/postgresql/<version>/bin.
pg_bindir() {
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [[ -n $dir && -x $dir/initdb ]] && echo "$dir"
}
if [[ -z ${AGENTD_TEST_DATABASE_URL:-} ]] && [[ -z $(pg_bindir) ]]; then missing+=(postgresql); fi
if [[ -z ${AGENTD_TEST_REDIS_URL:-} ]] && ! command -v redis-server >/dev/null 2>&1; then missing+=(redis-server); fi

if ((${#missing[@]} > 0)); then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: the tests need ${missing[*]}; install them with your package manager" >&2
    exit 1
  fi
  # apt-get needs root: as root run it, else through sudo when that asks no password.
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then
    if sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "test.sh: the tests need ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "== apt-get install ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# Engines: a PostgreSQL and a Redis of the run's own, on loopback, each with its own data folder and
# a free port under one temp folder, stopped and removed on exit. A URL already set in the
# environment names an engine to use instead. AGENTD_TEST_ENGINES=required makes the tests that need
# an engine fail, not skip, when its URL is missing (test/support/engines.ts).
engines=$(mktemp -d "${TMPDIR:-/tmp}/agentd-engines-XXXXXX")
chmod 755 "$engines"
pg_user=()
stop_engines() {
  if [[ -f $engines/pg/postmaster.pid ]]; then
    "${pg_user[@]}" "$(pg_bindir)/pg_ctl" stop -D "$engines/pg" -m fast -s >/dev/null 2>&1 || true
  fi
  if [[ -f $engines/redis.pid ]]; then
    kill "$(cat "$engines/redis.pid")" 2>/dev/null || true
  fi
  rm -rf "$engines"
}
trap stop_engines EXIT
free_port() {
  node -e 'const s=require("node:net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

if [[ -z ${AGENTD_TEST_DATABASE_URL:-} ]]; then
  bin=$(pg_bindir)
  # initdb refuses to run as root: as root the cluster belongs to the postgres account (Debian's
  # package makes it), else to nobody.
  if [[ $(id -u) -eq 0 ]]; then
    account=postgres
    id -u postgres >/dev/null 2>&1 || account=nobody
    pg_user=(runuser -u "$account" --)
  fi
  mkdir -p "$engines/pg" "$engines/pgrun"
  password=$(node -e 'console.log(require("node:crypto").randomBytes(18).toString("hex"))')
  echo "$password" >"$engines/pgpass"
  [[ ${#pg_user[@]} -gt 0 ]] && chown -R "$account" "$engines/pg" "$engines/pgrun" "$engines/pgpass"
  port=$(free_port)
  "${pg_user[@]}" "$bin/initdb" -D "$engines/pg" -U agentd --pwfile="$engines/pgpass" \
    --auth=scram-sha-256 -E UTF8 --no-locale >"$engines/initdb.log" 2>&1 ||
    { cat "$engines/initdb.log" >&2; exit 1; }
  rm -f "$engines/pgpass"
  # fsync off: a test database never outlives the run (so the bench says which engine it measured).
  "${pg_user[@]}" "$bin/pg_ctl" start -D "$engines/pg" -w -s -l "$engines/pgrun/log" \
    -o "-p $port -k $engines/pgrun -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" ||
    { cat "$engines/pgrun/log" >&2; exit 1; }
  export AGENTD_TEST_DATABASE_URL="postgres://agentd:$password@127.0.0.1:$port/postgres"
fi

if [[ -z ${AGENTD_TEST_REDIS_URL:-} ]]; then
  port=$(free_port)
  mkdir -p "$engines/redis"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$engines/redis" \
    --daemonize yes --pidfile "$engines/redis.pid" --logfile "$engines/redis.log"
  for _ in $(seq 100); do
    [[ $(redis-cli -p "$port" ping 2>/dev/null) == PONG ]] && break
    sleep 0.1
  done
  export AGENTD_TEST_REDIS_URL="redis://127.0.0.1:$port"
fi
export AGENTD_TEST_ENGINES=required

npx vitest run "$@"
