#!/usr/bin/env bash
# Install the third-party tools the benchmark compares dbjson with, from Debian 12's packages:
# pgloader (3.6.9), mydumper/myloader (0.10.1), GNU time; and py-spy from PyPI (into its own
# venv) for bench/profile.py. pg_dump/pg_restore/psql, the mariadb/mysql clients and mariadb-dump
# come with the servers (scripts/services).
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
if [ ${#want[@]} -eq 0 ]; then
  echo "bench/setup.sh: all Debian tools present"
else
  mapfile -t want < <(printf '%s\n' "${want[@]}" | sort -u)
  echo "bench/setup.sh: installing ${want[*]}" >&2
  apt-get update -qq >/dev/null 2>&1 || true
  for pkg in "${want[@]}"; do
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null 2>&1 \
      || echo "bench/setup.sh: could not install $pkg (the benchmark will mark it not available)" >&2
  done
fi

# py-spy (sampling profiler for bench/profile.py) from PyPI into its own venv, not dbjson's.
tools=${DBJSON_BENCH_WORK:-/tmp/dbjson-bench}/tools
if ! command -v py-spy >/dev/null 2>&1 && [ ! -x "$tools/bin/py-spy" ]; then
  python3 -m venv "$tools" && "$tools/bin/pip" install -q --disable-pip-version-check py-spy >/dev/null 2>&1 \
    || echo "bench/setup.sh: could not install py-spy (bench/profile.py needs it)" >&2
fi
