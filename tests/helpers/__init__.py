"""Test helpers, imported by name (never `from conftest import`)."""
