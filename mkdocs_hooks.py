"""mkdocs hooks: links from docs/ to repository files outside it.

A page may link to a file of the repository (``[schema.json](../jsonschema/schema.json)``), which
works when reading the Markdown on a forge. For the site, every such file that exists is copied to
``repo/<path>`` and the link is pointed there; a link to a repository file that does not exist is
left alone, so ``mkdocs build --strict`` still reports it as broken.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent
_LINK = re.compile(r"\]\(([^)\s#]+)([^)]*)\)")


def _repo_path(page_uri: str, link: str) -> str | None:
    """The repository path a relative link leaves docs/ for, if that file exists."""
    if "://" in link or link.startswith("/"):
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), link))
    if not target.startswith("../"):
        return None
    path = target[3:]
    return path if (ROOT / path).is_file() else None


def on_files(files: Files, config: Any) -> Files:
    """Add the repository files that pages link to, under ``repo/``."""
    wanted: set[str] = set()
    for page in files.documentation_pages():
        for m in _LINK.finditer(page.content_string):
            path = _repo_path(page.src_uri, m.group(1))
            if path:
                wanted.add(path)
    for path in sorted(wanted):
        files.append(File.generated(config, f"repo/{path}", abs_src_path=str(ROOT / path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point links to repository files at their copies under ``repo/``."""
    here = posixpath.dirname(page.file.src_uri)

    def swap(m: re.Match[str]) -> str:
        path = _repo_path(page.file.src_uri, m.group(1))
        if path is None:
            return m.group(0)
        return f"]({posixpath.relpath('repo/' + path, here or '.')}{m.group(2)})"

    return _LINK.sub(swap, markdown)
