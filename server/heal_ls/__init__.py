"""heal-ls: failing tests -> diagnostics on the failing function -> verified, node-local heals."""

__version__ = "0.1.0"
