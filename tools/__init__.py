"""Development tools of the repository (not part of the dbjson package, not in the wheel)."""
