#!/usr/bin/env bash
# Starts the machine's PostgreSQL 15 (installing it from Debian where absent) and makes sure a
# `posture` login role (allowed to create the per-test-file databases, owner of their tables), a
# `posture_app` login role (the application's, which row-level security binds) and a database exist.
# Prints the DATABASE_URL to use on its last line.
set -euo pipefail

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /usr/lib/postgresql/15 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-contrib-15 >/dev/null
fi
if ! pg_lsclusters -h | grep -q '^15 *main'; then
  pg_createcluster 15 main >/dev/null
fi
# Settings for a machine that runs PostgreSQL beside Posture (docs/configuration.md, "PostgreSQL's
# own settings"): a quarter of the memory for buffers, at most 4 GB, and WAL room enough that bulk
# ingestion's checkpoints come every 15 minutes rather than every 20 seconds. Applied with a
# restart when they change; if the server will not start with them, it starts without them.
settings=/etc/postgresql/15/main/conf.d/posture.conf
mkdir -p "$(dirname "$settings")"
memory_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
buffers_mb=$((memory_mb / 4 > 4096 ? 4096 : memory_mb / 4))
wanted="shared_buffers = ${buffers_mb}MB
max_wal_size = 8GB
checkpoint_timeout = 15min"
if [ "$(cat "$settings" 2>/dev/null)" != "$wanted" ]; then
  echo "$wanted" >"$settings"
  pg_ctlcluster 15 main stop 2>/dev/null || true
fi
if ! pg_ctlcluster 15 main start 2>/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "PostgreSQL did not start with $settings; starting it with its defaults" >&2
  rm -f "$settings"
  pg_ctlcluster 15 main start 2>/dev/null || true
fi
for _ in $(seq 1 60); do
  pg_isready -q -h 127.0.0.1 -p 5432 && break
  sleep 0.5
done
pg_isready -h 127.0.0.1 -p 5432 >/dev/null

as_postgres() { su postgres -c "psql -v ON_ERROR_STOP=1 -qtA -c \"$1\""; }
if [ "$(as_postgres "select 1 from pg_roles where rolname = 'posture'")" != "1" ]; then
  as_postgres "create role posture login password 'posture' createdb"
fi
# The application's role (docs/security.md, "Row-level security"): a plain login role that owns no
# table, so the policies bind it. Tests connect the app as posture_app and migrate as posture.
if [ "$(as_postgres "select 1 from pg_roles where rolname = 'posture_app'")" != "1" ]; then
  as_postgres "create role posture_app login password 'posture_app' nosuperuser nobypassrls nocreatedb nocreaterole"
fi
# Test databases are dropped WITH (FORCE); this lets it end an autovacuum worker visiting one.
as_postgres "grant pg_signal_backend to posture"
# The server runs as posture_app (row-level security); the benchmark's activity sampler, connected
# as posture, needs this to see what the server's sessions are running (docs/performance.md).
as_postgres "grant pg_read_all_stats to posture"
if [ "$(as_postgres "select 1 from pg_database where datname = 'posture'")" != "1" ]; then
  as_postgres "create database posture owner posture"
fi
echo "postgres://posture:posture@127.0.0.1:5432/posture"
