"""Importing the database drivers without what a connection rarely needs (start-up time).

* PyMySQL's ``_auth`` imports ``cryptography`` (0.05-0.1 s) for one function, the RSA encryption
  of a password that MySQL's ``sha256_password`` and ``caching_sha2_password`` ask for when their
  full authentication runs over a connection without TLS. :func:`import_pymysql` imports PyMySQL
  with ``cryptography`` held back and gives that function the real modules on its first call.
* psycopg and psycopg-binary read their own versions through ``importlib.metadata`` when imported
  (``metadata.version``: 0.03-0.05 s with the import of ``importlib.metadata`` itself).
  :func:`import_psycopg` reads the same ``Version:`` line from the distribution's ``METADATA``
  next to each package, and leaves psycopg to ``importlib.metadata`` whenever that is not plain.

Either falls back to the plain import when something is not as expected (the driver imported
already, another layout or version of it): never a different driver, only a slower start.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import threading
import types
from typing import Any

_lock = threading.Lock()


class _HoldBack:
    """A meta path finder that fails the import of ``package`` (and its submodules) in the thread
    that installed it. (Not an ``importlib.abc.MetaPathFinder``: importing that module costs 20 ms.)"""

    def __init__(self, package: str) -> None:
        self.package = package
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if threading.get_ident() == self.thread and (name == self.package or name.startswith(self.package + ".")):
            raise ModuleNotFoundError(f"{name} is imported on first use (dbjson.drivers)", name=name)
        return None


def _load_cryptography(auth: Any) -> None:
    """What ``pymysql._auth`` imports from ``cryptography`` at its top, set into it (once)."""
    with _lock:
        if auth._have_cryptography:
            return
        try:
            from cryptography.hazmat.backends import default_backend
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import padding
        except ImportError:  # not installed: PyMySQL's own error, as without dbjson
            return
        auth.default_backend = default_backend
        auth.hashes = hashes
        auth.serialization = serialization
        auth.padding = padding
        auth._have_cryptography = True


def import_pymysql() -> Any:
    """``pymysql``, imported without ``cryptography`` (loaded by the first RSA password exchange)."""
    if "pymysql" in sys.modules or "cryptography" in sys.modules:
        import pymysql

        return pymysql
    with _lock:
        hold = _HoldBack("cryptography")
        sys.meta_path.insert(0, hold)
        try:
            import pymysql
            from pymysql import _auth as auth
        finally:
            sys.meta_path.remove(hold)
    rsa_encrypt = getattr(auth, "sha2_rsa_encrypt", None)
    if getattr(auth, "_have_cryptography", None) is not False or not callable(rsa_encrypt):
        # not the module this was written for (PyMySQL 1.1-1.2): import it again, as it wants
        import importlib

        importlib.reload(auth)
        return pymysql

    def sha2_rsa_encrypt(password: bytes, salt: bytes, public_key: bytes) -> bytes:
        _load_cryptography(auth)
        return rsa_encrypt(password, salt, public_key)  # type: ignore[no-any-return]

    auth.sha2_rsa_encrypt = sha2_rsa_encrypt
    return pymysql


def _distribution_version(package: str, distribution: str) -> str | None:
    """The ``Version:`` of ``distribution``'s METADATA beside ``package`` on sys.path (what
    ``importlib.metadata.version`` finds for an installed wheel), or None when it is not the only
    one there or the package is not importable from a plain directory."""
    spec = importlib.machinery.PathFinder.find_spec(package)
    if spec is None or not spec.origin or not spec.submodule_search_locations:
        return None
    site = os.path.dirname(os.path.dirname(spec.origin))
    prefix = distribution.replace("-", "_").lower() + "-"
    try:
        found = [e for e in os.listdir(site) if e.lower().startswith(prefix) and e.endswith(".dist-info")]
    except OSError:
        return None
    if len(found) != 1:
        return None
    try:
        with open(os.path.join(site, found[0], "METADATA"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("Version:"):
                    return line[len("Version:") :].strip() or None
                if not line.strip():  # the end of the headers
                    return None
    except OSError:
        return None
    return None


def import_psycopg() -> types.ModuleType:
    """``psycopg``, its version (and psycopg-binary's) read without ``importlib.metadata``."""
    if "psycopg" in sys.modules or os.environ.get("PSYCOPG_IMPL"):
        import psycopg

        return psycopg
    with _lock:
        seeded: dict[str, types.ModuleType] = {}
        for package, distribution in (("psycopg", "psycopg"), ("psycopg_binary", "psycopg-binary")):
            version = _distribution_version(package, distribution)
            name = f"{package}.version"
            if version is None or name in sys.modules:
                continue
            mod = types.ModuleType(name, f"{distribution} distribution version file.")
            mod.__version__ = version  # type: ignore[attr-defined]
            sys.modules[name] = seeded[package] = mod
        try:
            import psycopg
        except BaseException:
            for package in seeded:
                sys.modules.pop(f"{package}.version", None)
            raise
        for package, mod in seeded.items():  # as if imported: an attribute of its package too
            parent = sys.modules.get(package)
            if parent is None:  # not the implementation psycopg chose (psycopg_c, ctypes): as before
                sys.modules.pop(f"{package}.version", None)
            elif not hasattr(parent, "version"):
                parent.version = mod  # type: ignore[attr-defined]
    return psycopg
