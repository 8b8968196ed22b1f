"""The repair cache: keyed on function source, normalised failure and provider/model."""

import sqlite3

from heal_ls.heal.cache import CachedFix, RepairCache, cache_key, failure_signature
from heal_ls.models import Failure


def _failure(message="KeyError: 'pear' at 0x7f00aa"):
    return Failure(id="t::a", test="t::a", exc_type="KeyError", message=message)


def test_signature_ignores_addresses_and_numbers():
    assert failure_signature(_failure("obj at 0x7f00aa has 3 items")) == failure_signature(
        _failure("obj at 0x1234 has 4 items")
    )
    assert failure_signature(_failure("'pear'")) != failure_signature(_failure("'apple'"))


def test_key_depends_on_every_part():
    base = cache_key("def f(): pass\n", _failure(), "openai", "m1")
    assert base == cache_key("def f(): pass\n", _failure(), "openai", "m1")
    assert base != cache_key("def f(): return 1\n", _failure(), "openai", "m1")
    assert base != cache_key("def f(): pass\n", _failure(), "anthropic", "m1")
    assert base != cache_key("def f(): pass\n", _failure(), "openai", "m2")


def test_put_get_roundtrip_and_persistence(tmp_path):
    path = tmp_path / "c.sqlite3"
    RepairCache(path).put("k", "def f():\n    return 1\n")
    assert RepairCache(path).get("k") == CachedFix("def f():\n    return 1\n", None)
    assert RepairCache(path).get("other") is None
    RepairCache(path).put("local", "def f():\n    return 2\n", local_rank=14)
    assert RepairCache(path).get("local") == CachedFix("def f():\n    return 2\n", 14)


def test_a_cache_written_before_ranks_were_kept_still_reads(tmp_path):
    path = tmp_path / "c.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE repairs (key TEXT PRIMARY KEY, fixed TEXT, created REAL)")
        db.execute("INSERT INTO repairs VALUES ('k', 'def f(): pass', 0)")
    cache = RepairCache(path)
    assert cache.get("k") == CachedFix("def f(): pass", None)
    cache.put("k2", "def g(): pass", local_rank=3)
    assert cache.get("k2") == CachedFix("def g(): pass", 3)


def test_corrupt_cache_file_is_a_miss_not_a_crash(tmp_path):
    path = tmp_path / "c.sqlite3"
    cache = RepairCache(path)
    path.write_bytes(b"not a database" * 100)
    assert cache.get("k") is None
    cache.put("k", "x")  # must not raise


def test_the_cache_lives_in_heal_ls_s_one_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HEAL_LS_CACHE_DIR", str(tmp_path / "cache"))
    assert RepairCache().path == tmp_path / "cache" / "repairs.sqlite3"
    assert (tmp_path / "cache").is_dir()
