"""Test and script runs: the run of a folder, the run commands, on save, pytest's lastfailed,
the impact-map fill, debugging a test."""
