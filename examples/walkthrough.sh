#!/usr/bin/env bash
# Migrate the sample shop database MariaDB → PostgreSQL → MariaDB, checking the data at every hop.
# Explained step by step in examples/walkthrough.md.
#
#   examples/walkthrough.sh [MARIADB_URL [POSTGRESQL_URL [BACK_URL]]]
#
# Defaults: mysql://root@127.0.0.1:3306/shop, postgresql://postgres@127.0.0.1:5432/shop and
# mysql://root@127.0.0.1:3306/shop_back. The three databases are DROPPED and re-created.
# Files go to $WALKTHROUGH_DIR (default ./walkthrough-out/). Passwords: DBJSON_PASSWORD.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${DBJSON_VENV:-$here/../.venv}
if [ -x "$venv/bin/dbjson" ]; then PATH="$venv/bin:$PATH"; fi

mariadb=${1:-mysql://root@127.0.0.1:3306/shop}
postgresql=${2:-postgresql://postgres@127.0.0.1:5432/shop}
back=${3:-mysql://root@127.0.0.1:3306/shop_back}
out=${WALKTHROUGH_DIR:-walkthrough-out}

bold='' plain=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; "$@"; }

rm -rf "$out" && mkdir -p "$out"

# 0. The sample database on MariaDB (generated, deterministic; drops and re-creates the database).
step python3 "$here/sample_db.py" "$mariadb" --create --customers 500

# 1. Its schema as a JSON document, checked against the JSON Schema.
step dbjson schema-dump "$mariadb" -o "$out/shop.schema.json"
step dbjson validate "$out/shop.schema.json"

# 2. What PostgreSQL will get: the DDL (to a file) and every approximation or loss (on stderr).
step dbjson schema-load "$out/shop.schema.json" --dialect postgresql --report "$out/to-postgresql.report.json" \
  >"$out/shop.postgresql.sql"

# 3. The rows, under one consistent snapshot, with a manifest of counts and checksums.
step dbjson export "$mariadb" -o "$out/from-mariadb" --threads 2

# 4. Into PostgreSQL (an empty database): the tables, COPY the rows, then keys and indexes; verified.
step python3 "$here/sample_db.py" "$postgresql" --empty
step dbjson import "$out/from-mariadb" "$postgresql" --threads 2

# 5. Check PostgreSQL against the MariaDB export (counts and content checksums, per table).
step dbjson verify "$out/from-mariadb" "$postgresql"

# 6. And back: export PostgreSQL, import into a new MariaDB database.
step dbjson export "$postgresql" -o "$out/from-postgresql" --threads 2
step python3 "$here/sample_db.py" "$back" --empty
step dbjson import "$out/from-postgresql" "$back" --threads 2

# 7. The round trip kept every value: the copy matches the ORIGINAL MariaDB export.
step dbjson verify "$out/from-mariadb" "$back"

# 8. The schema after the round trip, for comparison with step 1 (see walkthrough.md for the differences).
step dbjson schema-dump "$back" -o "$out/shop_back.schema.json"

# 9. Steps 3-5 in one command, without files in between (if this dbjson has `migrate`).
if dbjson migrate --help >/dev/null 2>&1; then
  step python3 "$here/sample_db.py" "$postgresql" --empty
  step dbjson migrate "$mariadb" "$postgresql" --threads 2
fi
printf '\nwalkthrough: done; files in %s/\n' "$out"
