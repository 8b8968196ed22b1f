"""A new `bench --real --results` page keeps the impact map's section written below its table."""

from heal_ls.commands.bench_real import CARRIED, carried


def test_the_impact_section_is_carried_over_and_nothing_else():
    page = f"# Real-bug corpus results\n\n| table |\n\n{CARRIED} (`heal-ls index`)\n\nfigures\n"
    assert carried(page) == f"\n{CARRIED} (`heal-ls index`)\n\nfigures\n"
    assert carried("# Real-bug corpus results\n\n| table |\n") == ""
