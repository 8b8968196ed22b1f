"""Every command-line face of heal-ls: check, fix, bench (and their output)."""
