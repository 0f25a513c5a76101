"""Build hook: compile dbjson's optional C speedups (``csrc/_c*.c``) into extension modules.

Each ``csrc/_cNAME.c`` is one CPython extension module ``dbjson._cNAME`` (the Python C API
only, no other library), compiled into the package directory ``dbjson/`` (so an editable install
imports it from the checkout, and a wheel force-includes it). They share the headers of
``csrc/common/`` and the vendored xxHash (``csrc/vendor/xxhash/``), found through ``-I csrc``;
``csrc/README.md`` describes them. They move bytes between the engines' bulk text formats and
dbjson's JSON lines without building a Python object per value; every one has a pure-Python path
beside it that gives the same bytes (the tests compare the two), so a machine without a C compiler
still gets a working dbjson, only slower. A failed compile is a warning, not a failed install.

``DBJSON_PURE_PYTHON=1`` builds the pure-Python wheel (``py3-none-any``: no compile, no ``.so``);
``scripts/build-wheels`` builds both and gives the C one a manylinux tag with auditwheel.

Also runnable by hand in a checkout: ``python hatch_build.py`` compiles them in place (a module
is recompiled when its source, a header under ``csrc/`` or this file is newer than it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
CSRC = ROOT / "csrc"  # the C sources: one _cNAME.c per module, headers in common/ and vendor/
PACKAGE = ROOT / "dbjson"  # where the compiled modules go (import name dbjson._cNAME)
FLAGS = ["-O2", "-shared", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fvisibility=hidden"]


def sources() -> list[Path]:
    """The C sources, one per extension module."""
    return sorted(CSRC.glob("_c*.c"))


def headers() -> list[Path]:
    """Every header a module may include (``csrc/common/``, ``csrc/vendor/``)."""
    return sorted(CSRC.rglob("*.h"))


def compile_all(log: Callable[[str], object] = print) -> list[Path]:
    """Compile every ``csrc/_c*.c`` into ``dbjson/``; returns the modules built (or up to date)."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    shared = max([Path(__file__).stat().st_mtime, *(h.stat().st_mtime for h in headers())])
    built = []
    for src in sources():
        out = PACKAGE / (src.stem + suffix)
        if out.exists() and out.stat().st_mtime >= max(src.stat().st_mtime, shared):
            built.append(out)
            continue
        cmd = [*cc, *FLAGS, f"-I{include}", f"-I{CSRC}", str(src), "-o", str(out)]
        try:
            proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as e:
            detail = getattr(e, "stderr", "") or str(e)
            log(f"dbjson: could not compile {src.name} (the pure-Python path is used instead): {detail.strip()[:2000]}")
            continue
        if proc.stderr.strip():
            log(f"dbjson: warnings compiling {src.name}: {proc.stderr.strip()[:2000]}")
        built.append(out)
    return built


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run by hand, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    def initialize(self, version: str, build_data: dict) -> None:  # type: ignore[type-arg]
        if self.target_name != "wheel":
            return
        if os.environ.get("DBJSON_PURE_PYTHON", "") not in ("", "0"):  # the py3-none-any wheel (scripts/build-wheels)
            return
        built = compile_all(lambda msg: print(msg, file=sys.stderr))
        if not built:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":  # an editable install imports them from the checkout itself
            for so in built:
                build_data["force_include"][str(so)] = f"dbjson/{so.name}"


if __name__ == "__main__":
    mods = compile_all()
    print("built: " + (", ".join(p.name for p in mods) or "nothing"))
