#!/usr/bin/env bash
# Install the third-party tools the benchmark compares dbjson with, from Debian 12's packages:
# pgloader (3.6.9), mydumper/myloader (0.10.1), GNU time. pg_dump/pg_restore/psql and the
# mariadb/mysql clients and mariadb-dump come with the servers (scripts/services).
# Idempotent; bench/run.py calls it with --setup. Tools that still cannot be installed are
# reported by bench/run.py as "not available" instead of failing the run.
set -uo pipefail
want=()
for pair in pgloader:pgloader mydumper:mydumper myloader:mydumper /usr/bin/time:time \
            pg_dump:postgresql-client pg_restore:postgresql-client psql:postgresql-client \
            mariadb:mariadb-client mariadb-dump:mariadb-client; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || want+=("$pkg")
done
if [ ${#want[@]} -eq 0 ]; then echo "bench/setup.sh: all tools present"; exit 0; fi
mapfile -t want < <(printf '%s\n' "${want[@]}" | sort -u)
echo "bench/setup.sh: installing ${want[*]}" >&2
apt-get update -qq >/dev/null 2>&1 || true
for pkg in "${want[@]}"; do
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1 \
    || echo "bench/setup.sh: could not install $pkg (the benchmark will mark it not available)" >&2
done
