"""The C speedups' sources and what ships: the constants Python shares with the C modules come from
one place, the vendored xxHash is recorded, and the package holds no C source.

- ``dbjson/_speedups_table.py`` is what ``tools/gen_speedups_table.py`` makes of ``csrc/_c*.c``
  today, and every built module exports exactly those constants (``PyModule_AddIntConstant``);
- the Python names that hold those numbers (the engines' kinds, the importer's ops, the loaders'
  flavors, the codec's checksum algorithms) hold the same values;
- ``dbjson/`` has no ``.c``/``.h`` file and the wheel packages ``dbjson/`` only, so no C source
  ships in a wheel (the sources live in ``csrc/``, which the sdist carries);
- ``csrc/vendor/xxhash/`` holds the header's own licence text and its version.
"""

from __future__ import annotations

import importlib.util
import os
import re
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from dbjson import speedups
from dbjson._speedups_table import CONSTANTS
from dbjson.engines import get_engine
from dbjson.engines.mysql import export as my_export
from dbjson.engines.postgresql import export as pg_export
from dbjson.format import checksum
from dbjson.importer import encoders

ROOT = Path(__file__).resolve().parents[1]
XXHASH = ROOT / "csrc" / "vendor" / "xxhash"


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table_is_up_to_date_with_the_c_sources() -> None:
    gen = _load(ROOT / "tools" / "gen_speedups_table.py")
    assert (ROOT / "dbjson" / "_speedups_table.py").read_text() == gen.render(gen.read_sources()), (
        "run python tools/gen_speedups_table.py"
    )
    assert set(CONSTANTS) == {p.stem for p in (ROOT / "csrc").glob("_c*.c")}


def test_generator_reads_x_macro_lists() -> None:
    gen = _load(ROOT / "tools" / "gen_speedups_table.py")
    source = """
    #define KINDS(X)            \\
        X(K_A) /* first */      \\
        X(K_B)
    enum { KINDS(CONST_ENUM) K_COUNT };
    /* #define OLD(X) X(K_GONE) */
    #define CONST_ENUM(name) name,
    #define FLAVORS(X) X(F_PG) X(F_MY)
    """
    assert gen.module_constants(source) == {"K_A": 0, "K_B": 1, "F_PG": 0, "F_MY": 1}
    with pytest.raises(ValueError, match="K_A"):
        gen.module_constants("#define A(X) X(K_A)\n#define B(X) X(K_A)\n")


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_built_module_exports_the_table(name: str) -> None:
    module = speedups._module(name)
    if module is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"dbjson.{name} is not built (python hatch_build.py); CI must test the C path")
        pytest.skip(f"dbjson.{name} is not built")
    exported = {k: v for k, v in vars(module).items() if k.isupper() and isinstance(v, int)}
    assert exported == CONSTANTS[name]
    assert speedups.constants(name) == CONSTANTS[name]


def test_table_is_used_when_a_module_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(speedups._cache, "_cmyexport", None)
    assert speedups.constants("_cmyexport") == CONSTANTS["_cmyexport"]


def test_python_names_hold_the_c_numbers() -> None:
    for name, value in CONSTANTS["_cmyexport"].items():
        if name.startswith("K_"):
            assert getattr(my_export, "_" + name) == value, name
    for name, value in CONSTANTS["_cpgexport"].items():
        assert getattr(pg_export, name) == value, name
    ops = {k: v for k, v in CONSTANTS["_cimport"].items() if k.startswith("OP_")}
    assert encoders._C_OPS == {k[3:].lower(): v for k, v in ops.items()}
    flavors = CONSTANTS["_cimport"]
    assert get_engine("postgresql").capabilities.bulk_text.c_flavor == flavors["FLAVOR_PG"]  # type: ignore[union-attr]
    for engine in ("mysql", "mariadb"):
        assert get_engine(engine).capabilities.bulk_text.c_flavor == flavors["FLAVOR_MY"]  # type: ignore[union-attr]
    algorithms = CONSTANTS["_cchecksum"]
    assert checksum._C_ALGORITHM == {
        checksum.BLAKE2B_SUM: algorithms["BLAKE2B64"],
        checksum.XXH3_SUM: algorithms["XXH3"],
    }


def test_available_names_every_module() -> None:
    assert set(speedups.available()) == {p.stem for p in (ROOT / "csrc").glob("_c*.c")}


def test_package_holds_no_c_sources() -> None:
    sources = [p for p in (ROOT / "dbjson").rglob("*") if p.suffix in (".c", ".h")]
    assert not sources, f"C sources belong in csrc/, not in the package: {sources}"
    hatch = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert hatch["packages"] == ["dbjson"]
    for src in hatch.get("force-include", {}):
        assert not src.startswith("csrc") and Path(src).suffix not in (".c", ".h"), src


def test_hatch_build_compiles_csrc_into_the_package() -> None:
    hook = _load(ROOT / "hatch_build.py")
    assert {p.stem for p in hook.sources()} == set(CONSTANTS)
    assert all(p.parent == ROOT / "csrc" for p in hook.sources())
    assert hook.PACKAGE == ROOT / "dbjson"
    assert {p.relative_to(ROOT / "csrc").parts[0] for p in hook.headers()} == {"common", "vendor"}


def test_vendored_xxhash_records_version_and_licence() -> None:
    header = (XXHASH / "xxhash.h").read_text()
    version = ".".join(
        re.search(rf"#define XXH_VERSION_{part}\s+(\d+)", header).group(1)  # type: ignore[union-attr]
        for part in ("MAJOR", "MINOR", "RELEASE")
    )
    assert (XXHASH / "VERSION").read_text().strip() == version == "0.8.2"
    comment = header[header.index("/*") + 2 : header.index("*/")].splitlines()
    text = [re.sub(r"^ \* ?|^ \*$", "", line) for line in comment[1:]]
    licence = "\n".join(text[: text.index("You can contact the author at:")]).rstrip("\n") + "\n"
    assert (XXHASH / "LICENSE").read_text() == licence
    assert "BSD 2-Clause License" in licence
