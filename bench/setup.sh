#!/usr/bin/env bash
# Install the third-party tools the benchmark compares dbjson with, from Debian 12's packages:
# pgloader (3.6.9), mydumper/myloader (0.10.1), pgcopydb (0.10), GNU time; and from PyPI into their
# own venv (<work>/tools, not dbjson's): Sling (the package sling-linux-amd64 carries the binary),
# dlt with its postgres and sql_database extras (+ PyMySQL, SQLAlchemy), and py-spy for
# bench/profile.py. pg_dump/pg_restore/psql, the mariadb/mysql clients and mariadb-dump come with
# the servers (scripts/services).
# Idempotent; bench/run.py calls it with --setup. Tools that still cannot be installed are
# reported by bench/run.py as "not available" instead of failing the run.
set -uo pipefail
want=()
for pair in pgloader:pgloader mydumper:mydumper myloader:mydumper pgcopydb:pgcopydb /usr/bin/time:time \
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

# Sling, dlt and py-spy (sampling profiler for bench/profile.py) from PyPI into their own venv, not dbjson's.
tools=${DBJSON_BENCH_WORK:-/tmp/dbjson-bench}/tools
[ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
for spec in py-spy:py_spy sling-linux-amd64:sling_linux_amd64 'dlt[postgres,sql_database]':dlt pymysql:pymysql sqlalchemy:sqlalchemy; do
  pkg=${spec%%:*}; mod=${spec##*:}
  "$tools/bin/python" -c "import $mod" >/dev/null 2>&1 && continue
  "$tools/bin/pip" install -q --disable-pip-version-check "$pkg" >/dev/null 2>&1 \
    || echo "bench/setup.sh: could not install $pkg (the benchmark marks it not available)" >&2
done
