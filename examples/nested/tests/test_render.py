from tables.render import column_widths, render_table


def test_column_widths():
    assert column_widths([["a", "bbb"], ["cc", "d"]]) == [2, 3]


def test_column_widths_numbers():
    assert column_widths([[1, 22], [333, 4]]) == [3, 2]


def test_render_table():
    rows = [["name", "qty"], ["pear", 2], ["fig", 10]]
    assert render_table(rows) == "name  qty\npear  2\nfig   10"


def test_render_empty_row():
    assert render_table([[]]) == ""
