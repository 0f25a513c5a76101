"""Where events go besides the terminal: ``--progress json`` (one JSON object per line on stderr,
for orchestrators), ``--log-file FILE`` (timestamped lines, appended) and ``-v`` (more lines on
stderr). Set once by the root options (:func:`configure`); :class:`~.progress.Renderer` hands
every event to :func:`record`. Every line written passes :func:`~dbjson.connect.mask_text`: no
password reaches a log.
"""

from __future__ import annotations

import atexit
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ..connect import mask_text
from ..errors import UsageError
from ..events import (
    ChunkDone,
    Event,
    Finished,
    PhaseStarted,
    RowsProgress,
    TableFinished,
    TableStarted,
    TableVerified,
    UnitLoaded,
    event_dict,
)

PROGRESS_MODES = ("auto", "json", "none")


@dataclass
class Output:
    """The root options: ``progress`` (auto: bars on a terminal; json; none), the log, ``verbose``."""

    progress: str = "auto"
    verbose: int = 0
    log: IO[str] | None = None


OUTPUT = Output()


def configure(progress: str, log_file: str | None, verbose: int) -> None:
    """Apply ``--progress``, ``--log-file`` and ``-v`` (before the command runs)."""
    if progress not in PROGRESS_MODES:
        raise UsageError(f"--progress must be one of {', '.join(PROGRESS_MODES)}, not {progress!r}")
    OUTPUT.progress, OUTPUT.verbose = progress, verbose
    if OUTPUT.log is not None:
        OUTPUT.log.close()
        OUTPUT.log = None
    if log_file:
        try:
            OUTPUT.log = Path(log_file).open("a", encoding="utf-8")  # noqa: SIM115 - closed at exit
        except OSError as e:
            raise UsageError(f"cannot open the log file: {e.strerror}", file=log_file) from None
        atexit.register(OUTPUT.log.close)
        log_line("start: " + " ".join(["dbjson", *sys.argv[1:]]))


def log_line(text: str) -> None:
    """One timestamped line in the log file (if any)."""
    if OUTPUT.log is not None and not OUTPUT.log.closed:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"
        OUTPUT.log.write(f"{stamp} {mask_text(text)}\n")
        OUTPUT.log.flush()


def json_line(data: dict[str, Any]) -> None:
    """One JSON object on stderr (``--progress json``)."""
    data = {"time": round(time.time(), 3), **data}
    sys.stderr.write(mask_text(orjson.dumps(data, default=str).decode()) + "\n")
    sys.stderr.flush()


def record(operation: str, event: Event) -> None:
    """``event`` to the JSON stream and the log (RowsProgress only with -vv: they are frequent)."""
    if OUTPUT.progress == "json":
        json_line({"operation": operation, **event_dict(event)})
    if OUTPUT.log is not None and (not isinstance(event, RowsProgress) or OUTPUT.verbose >= 2):
        log_line(f"{operation}: " + describe(event))


def describe(event: Event) -> str:
    """A one-line text of any event (the log's, and -v's)."""
    data = event_dict(event)
    name = str(data.pop("event"))
    if isinstance(event, Finished):
        return f"{name} ok={event.ok} rows={event.rows} seconds={event.seconds:.1f}"
    return name + " " + " ".join(f"{k}={v}" for k, v in data.items() if v not in (None, "", ()))


def verbose_line(event: Event) -> str | None:
    """The extra line ``-v`` prints on stderr for ``event`` (None: nothing extra)."""
    if OUTPUT.verbose < 1:
        return None
    if isinstance(event, TableStarted | TableFinished | ChunkDone | UnitLoaded | TableVerified):
        return describe(event)
    if isinstance(event, PhaseStarted) and not event.message:
        return describe(event)
    if isinstance(event, RowsProgress) and OUTPUT.verbose >= 2:
        return describe(event)
    return None


__all__ = ["OUTPUT", "PROGRESS_MODES", "configure", "record", "log_line", "json_line", "describe", "verbose_line"]
