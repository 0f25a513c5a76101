"""Move tables with dlt (run by bench/run.py in the tools venv of bench/setup.sh, not dbjson's).

    python bench/dlt_move.py SOURCE_URL TARGET_URL DATASET_NAME TABLE[,TABLE...] PIPELINES_DIR

dlt's ``sql_database`` source with its defaults (SQLAlchemy backend) into its ``postgres``
destination, ``write_disposition="replace"``; the tables land in the schema ``DATASET_NAME``, with
dlt's own ``_dlt_load_id``/``_dlt_id`` columns added.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    import dlt
    from dlt.sources.sql_database import sql_database

    src, dst, dataset_name, tables, pipelines_dir = argv
    source = sql_database(credentials=src, table_names=tables.split(","))
    pipeline = dlt.pipeline(
        pipeline_name="dbjson_bench",
        destination=dlt.destinations.postgres(credentials=dst),
        dataset_name=dataset_name,
        pipelines_dir=pipelines_dir,
    )
    info = pipeline.run(source, write_disposition="replace")
    print(info)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
