"""The localise benchmark's machinery on one tiny package built here (no download, one run each).

The real benchmark (`heal-ls bench --suite localise`) fetches real sdists; this checks the same
steps: a pinned archive is verified and unpacked, bugs are injected one at a time and the file is
restored, and the ranks of the injected function are scored.
"""

import asyncio
import hashlib
import io
import tarfile
import textwrap

import pytest
from heal_ls.bench import localise
from heal_ls.bench.mutants import mutants_of
from heal_ls.bench.sdist import FetchError
from heal_ls.testing.options import RunOptions

CODE = """
def total(prices):
    def taxed(price):
        return price * 2

    return sum(taxed(p) for p in prices)


def first(items):
    if items:
        return items[0]
    return None
"""

TESTS = """
import unittest

from tiny.calc import first, total


class CalcTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(total([1, 2]), 6)

    def test_total_of_nothing(self):
        self.assertEqual(total([]), 0)

    def test_first(self):
        got = first([4, 5])
        self.assertEqual(got, 4)
"""


def _sdist(folder, name="tiny", version="1.0"):
    archive = folder / "sdists" / f"{name}-{version}" / f"{name}-{version}.tar.gz"
    archive.parent.mkdir(parents=True)
    with tarfile.open(archive, "w:gz") as tar:
        for path, text in {"src/tiny/__init__.py": "", "src/tiny/calc.py": CODE,
                           "tests/test_calc.py": TESTS}.items():  # fmt: skip
            data = textwrap.dedent(text).lstrip("\n").encode()
            info = tarfile.TarInfo(f"{name}-{version}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(archive.read_bytes()).hexdigest()


def test_mutants_name_the_function_holding_them_nested_ones_too():
    found = mutants_of("calc.py", textwrap.dedent(CODE))
    by_function = {m.qualname for m in found}
    assert by_function == {"total", "total.<locals>.taxed", "first"}
    taxed = [m for m in found if m.qualname == "total.<locals>.taxed"]
    assert {m.kind for m in taxed} >= {"arith", "const", "ret"}
    assert all(m.old != m.new and m.apply(textwrap.dedent(CODE)) != CODE for m in found)


def test_a_tampered_archive_is_refused(tmp_path):
    _sdist(tmp_path)
    package = localise.Package("tiny", "1.0", "0" * 64, "src/tiny", "src", "tests")
    with pytest.raises(FetchError, match="sha256"):
        localise.fetch(package, tmp_path)


def test_injected_bugs_are_ranked_and_the_source_restored(tmp_path, monkeypatch):
    digest = _sdist(tmp_path)
    package = localise.Package("tiny", "1.0", digest, "src/tiny", "src", "tests")
    root = localise.fetch(package, tmp_path)
    before = (root / "src/tiny/calc.py").read_text()
    monkeypatch.setenv("PYTHONPATH", str(root / "src"))
    mutants = localise.candidate_mutants(package, root)
    assert mutants[0].nested  # closures come first in the mix
    chosen = [mutants[0], next(m for m in mutants if m.qualname == "first")]
    options = RunOptions(test_timeout=10.0, run_timeout=300)
    rows = [asyncio.run(localise.localise_bug(package, root, m, options)) for m in chosen]
    assert (root / "src/tiny/calc.py").read_text() == before
    assert rows[0] is not None and rows[0].ranks == [1] and rows[0].nested
    assert rows[1] is not None and rows[1].ranks == [1]
    lines = localise.table(rows, [])
    assert lines[-1].startswith("| all | 2 | 2 | 100% |")
