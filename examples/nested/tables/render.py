"""Render rows of cells as plain-text columns."""


def column_widths(rows):
    """The width of each column: its longest cell."""
    return [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]


def render_table(rows):
    """Left-align every column, two spaces between columns, no trailing spaces."""
    widths = column_widths(rows)

    def render_row(row):
        cells = [str(cell).ljust(widths[i + 1]) for i, cell in enumerate(row)]
        return "  ".join(cells).rstrip()

    return "\n".join(render_row(row) for row in rows)
