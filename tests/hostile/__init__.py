"""Hostile and broken input corpus for tests/test_hostile.py (names, crafted documents, broken data)."""
