"""A tiny real-bug corpus built in a temp folder: one sdist-like tarball, already in the cache
(so nothing is downloaded), and bugs as the corpus stores them (bug.json + two patches)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

CALC = "def is_adult(age):\n    return age > 18\n"
TESTS = (
    "from tiny.calc import is_adult\n\n\n"
    "def test_grown_up():\n    assert is_adult(30)\n\n\n"
    "def test_child():\n    assert not is_adult(5)\n"
)
SOURCE_PATCH = """\
diff --git a/src/tiny/calc.py b/src/tiny/calc.py
--- a/src/tiny/calc.py
+++ b/src/tiny/calc.py
@@ -1,2 +1,2 @@
 def is_adult(age):
-    return age > 18
+    return age >= 18
"""


def added_test_patch(name: str, age: int) -> str:
    return f"""\
diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -8,2 +8,6 @@ def test_grown_up():
 def test_child():
     assert not is_adult(5)
+
+
+def test_{name}():
+    assert is_adult({age})
"""


def build_corpus(folder: Path) -> tuple[Path, Path]:
    """(corpus folder, cache folder): bug `tiny-good` reproduces (18 is adult, the code says
    no), mined in round 1; `tiny-bad` does not (its new test already passes on the buggy code),
    round 2."""
    corpus, cache = folder / "corpus", folder / "cache"
    archive = cache / "sdists" / "tiny-1.0" / "tiny-1.0.tar.gz"
    archive.parent.mkdir(parents=True)
    with tarfile.open(archive, "w:gz") as tar:
        files = {"src/tiny/__init__.py": "", "src/tiny/calc.py": CALC, "tests/test_calc.py": TESTS}
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"tiny-1.0/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    corpus.mkdir()
    projects = {"tiny": {"pythonpath": "src", "deps": []}}  # no deps: heal-ls's own python
    (corpus / "projects.json").write_text(json.dumps(projects), encoding="utf-8")
    for bug, name, age, round_ in (
        ("tiny-good", "eighteen", 18, 1),
        ("tiny-bad", "nineteen", 19, 2),
    ):
        where = corpus / "bugs" / bug
        where.mkdir(parents=True)
        data = {
            "project": "tiny", "version": "1.0", "sha256": digest, "commit": "0" * 40,
            "url": "https://example.invalid/commit/0", "functions": ["src/tiny/calc.py::is_adult"],
            "failing_tests": [f"tests/test_calc.py::test_{name}"], "round": round_,
        }  # fmt: skip
        (where / "bug.json").write_text(json.dumps(data), encoding="utf-8")
        (where / "source.patch").write_text(SOURCE_PATCH, encoding="utf-8")
        (where / "test.patch").write_text(added_test_patch(name, age), encoding="utf-8")
    return corpus, cache
