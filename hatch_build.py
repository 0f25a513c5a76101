"""Build hook: compile dbjson's optional C speedups (``dbjson/_c*.c``) into extension modules.

Each ``dbjson/_cNAME.c`` is one CPython extension module ``dbjson._cNAME`` (the Python C API
only, no other library). They move bytes between the engines' bulk text formats and dbjson's JSON
lines without building a Python object per value; every one has a pure-Python path beside it that
gives the same bytes (the tests compare the two), so a machine without a C compiler still gets a
working dbjson, only slower. A failed compile is a warning, not a failed install.

Also runnable by hand in a checkout: ``python hatch_build.py`` compiles them in place.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent
FLAGS = ["-O2", "-shared", "-fPIC", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fvisibility=hidden"]


def sources() -> list[Path]:
    return sorted((ROOT / "dbjson").glob("_c*.c"))


def compile_all(log=print) -> list[Path]:  # type: ignore[no-untyped-def]
    """Compile every ``dbjson/_c*.c`` next to its source; returns the modules built."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    built = []
    for src in sources():
        out = src.with_name(src.stem + suffix)
        if out.exists() and out.stat().st_mtime >= max(
            [src.stat().st_mtime, *(h.stat().st_mtime for h in src.parent.glob("_c*.h"))]
        ):
            built.append(out)
            continue
        cmd = [*cc, *FLAGS, f"-I{include}", f"-I{src.parent}", str(src), "-o", str(out)]
        try:
            subprocess.run(cmd, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as e:
            detail = getattr(e, "stderr", "") or str(e)
            log(f"dbjson: could not compile {src.name} (the pure-Python path is used instead): {detail.strip()[:2000]}")
            continue
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
