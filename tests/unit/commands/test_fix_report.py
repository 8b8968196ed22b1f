"""What `heal-ls fix` prints at the end: counts that read right, and what to try next."""

from heal_ls.commands.fix_report import LOCAL_GAVE_UP_HINT, print_report
from helpers.rows import fix_row as row


def printed(capsys, rows, *, applying=False, local=True) -> list[str]:
    print_report(rows, as_json=False, applying=applying, local=local)
    return capsys.readouterr().out.splitlines()


def test_counts_are_singular_when_they_are_one(capsys):
    assert "# blast radius: 1 call site, 1 guard test" in printed(capsys, [row("verified")])


def test_nothing_verified_offers_nothing_to_write(capsys):
    lines = printed(capsys, [row("unverified")])
    assert "0/1 verified; nothing to write" in lines
    assert not any("--apply" in line for line in lines)


def test_a_verified_fix_is_offered_to_write(capsys):
    assert printed(capsys, [row("verified")])[-1] == "1/1 verified; run with --apply to write them"


def test_a_target_fixed_by_another_fix_is_not_counted_as_unverified(capsys):
    """tinydb: LRUCache.set's fix also made test_lru_cache pass; `1/2 verified` read as a miss."""
    fixed = row("fixed", fixed_by="pkg/a.py::f", suspect="pkg/a.py::g")
    lines = printed(capsys, [row("verified"), fixed])
    assert lines[-2:] == [
        "1 target(s) fixed by another target's fix",
        "1/1 verified; run with --apply to write them",
    ]


def test_a_local_miss_suggests_a_model_and_a_model_miss_does_not(capsys):
    assert printed(capsys, [row("failed")])[-1] == LOCAL_GAVE_UP_HINT
    assert LOCAL_GAVE_UP_HINT not in printed(capsys, [row("failed")], local=False)
    assert LOCAL_GAVE_UP_HINT not in printed(capsys, [row("verified")])


def test_a_target_grouped_under_a_weak_fix_says_it_and_shows_no_diff_of_its_own(capsys):
    weak = row("weak", proof="weak: only 1 failing test now passing", diff="--- a\n+++ b\n")
    grouped = row("grouped", fixed_by="pkg/a.py::f", suspect="pkg/a.py::g")
    lines = printed(capsys, [weak, grouped], local=False)
    assert "tests/test_a.py::test_a: would be fixed by pkg/a.py::f's weak fix (not applied)," in (
        " ".join(lines)
    )
    assert not any(line.startswith("pkg/a.py::g") for line in lines)  # g is not reported healed
    assert "1 target(s) grouped under another target's weak fix (not applied)" in lines
    assert lines[-1] == "0/2 verified; nothing to write"
