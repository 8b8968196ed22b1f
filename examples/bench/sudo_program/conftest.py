"""Puts this folder on sys.path for the tests."""
