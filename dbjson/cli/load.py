"""import and verify commands (placeholder to be filled)."""

from __future__ import annotations
