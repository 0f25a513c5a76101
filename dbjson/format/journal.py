"""The resume journal of ``dbjson import``.

An append-only file of JSON lines next to the export (``DIR/.dbjson-import-<target hash>.journal``).
Every step of an import (one DDL statement, one data unit) writes a ``begin`` record before it
commits and a ``done`` record after; each record is flushed and fsync'd before the import goes on.

After a crash (kill -9, power loss) the journal tells ``--resume`` three things per step: done
(skip it), never begun (run it), or *ambiguous* (begun, not known to be done: the server may or may
not have committed it). The importer resolves ambiguous data units against the target (row counts)
and ambiguous DDL by tolerating "already exists". A torn last line (a crash in the middle of a
write) is ignored: its step is simply not done.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..errors import DataError
from .paths import open_for_write

JOURNAL_FORMAT = "dbjson-import-journal"


def journal_path(directory: str | Path, target_identity: str) -> Path:
    """The journal file for importing ``directory`` into the target named by ``target_identity``.

    ``target_identity`` is a password-free description of the target (engine, host, database);
    its hash keeps journals of different targets apart.
    """
    digest = hashlib.blake2b(target_identity.encode(), digest_size=6).hexdigest()
    return Path(directory) / f".dbjson-import-{digest}.journal"


@dataclass
class JournalState:
    """What a journal file says: finished steps (with their payload) and begun-but-unfinished ones."""

    export_id: str | None = None
    done: dict[str, dict[str, Any]] = field(default_factory=dict)
    begun: set[str] = field(default_factory=set)
    sessions: dict[str, str] = field(default_factory=dict)  # step -> the server session that committed it

    @property
    def ambiguous(self) -> set[str]:
        """Steps that began and may or may not have committed."""
        return self.begun - set(self.done)


_OPS = ("start", "begin", "done", "undo")
_COUNTS = ("rows", "rejected")  # payload fields the importer reads back as counts


def _check_record(rec: Any, file: str, line: int) -> None:
    """A journal record is read back as data only: an object with a known ``op``, a string
    ``step`` and counts that are non-negative integers; anything else is a tampered journal."""
    problem = None
    if not isinstance(rec, dict) or rec.get("op") not in _OPS:
        problem = "not a journal record"
    elif rec["op"] == "start":
        if not isinstance(rec.get("export"), (str, type(None))):
            problem = "'export' is not a string"
    elif not isinstance(rec.get("step"), str):
        problem = "'step' is not a string"
    else:
        for k in _COUNTS:
            v = rec.get(k, 0)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                problem = f"{k!r} is not a count"
        if not isinstance(rec.get("checksum", ""), (str, type(None))):
            problem = "'checksum' is not a string"
        session = rec.get("session", "")
        if not isinstance(session, str) or len(session) > 64:
            problem = "'session' is not a session id"
    if problem is not None:
        raise DataError(f"corrupt import journal line: {problem}", file=file, line=line)


class Journal:
    """An fsync'd, append-only, thread-safe step journal."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._fh: Any = None

    # -- reading ----------------------------------------------------------------------------------
    def read(self) -> JournalState:
        """Parse the journal (an absent file is an empty journal; a torn last line is ignored)."""
        state = JournalState()
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return state
        lines = raw.split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                if number == len(lines):  # torn final write: that step is not done
                    break
                raise DataError("corrupt import journal line", file=str(self.path), line=number) from None
            _check_record(rec, str(self.path), number)
            op = rec["op"]
            if op == "start":
                state.export_id = rec.get("export")
            elif op == "begin":
                state.begun.add(rec["step"])
                if rec.get("session"):
                    state.sessions[rec["step"]] = rec["session"]
            elif op == "done":
                state.done[rec["step"]] = rec
            elif op == "undo":
                state.done.pop(rec["step"], None)
                state.begun.discard(rec["step"])
        return state

    # -- writing ----------------------------------------------------------------------------------
    def reset(self, export_id: str) -> None:
        """Start a new journal (a fresh, non-resumed import)."""
        self.close()
        tmp = self.path.with_name(self.path.name + ".new")
        with open_for_write(tmp) as fh:
            fh.write(orjson.dumps({"op": "start", "format": JOURNAL_FORMAT, "export": export_id}) + b"\n")
        os.replace(tmp, self.path)
        self._fsync_dir()

    def _write(self, rec: dict[str, Any]) -> None:
        data = orjson.dumps(rec) + b"\n"
        with self._lock:
            if self._fh is None:
                self._fh = open_for_write(self.path, append=True)  # kept open for the import
            self._fh.write(data)
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def begin(self, step: str, session: str | None = None) -> None:
        """Record that ``step`` is about to commit (``session``: the server session committing it,
        which a resume waits for before it counts rows)."""
        self._write(
            {"op": "begin", "step": step} if session is None else {"op": "begin", "step": step, "session": session}
        )

    def done(self, step: str, **payload: Any) -> None:
        """Record that ``step`` committed (``payload``: rows, checksum...)."""
        self._write({"op": "done", "step": step, **payload})

    def undo(self, step: str) -> None:
        """Record that a finished step was undone (its table was emptied to be reloaded)."""
        self._write({"op": "undo", "step": step})

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def remove(self) -> None:
        """Delete the journal (after a complete, verified import)."""
        self.close()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def _fsync_dir(self) -> None:
        try:
            fd = os.open(self.path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
