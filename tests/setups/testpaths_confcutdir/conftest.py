"""Above confcutdir: pytest never loads it."""

raise RuntimeError("conftest.py above confcutdir was loaded")
