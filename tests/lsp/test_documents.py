"""Line splitting and the minimal TextEdit a fix is sent as: before/after strings."""

from heal_ls.lsp.heal.apply import minimal_edit
from heal_ls.lsp.workspace.documents import split_lines
from lsprotocol import types as t
from pygls.workspace.position_codec import PositionCodec

UTF16 = PositionCodec(encoding="utf-16")


def offset(lines: list[str], position: t.Position) -> int:
    if position.line >= len(lines):
        return sum(map(len, lines))
    server = UTF16.position_from_client_units(lines, position)  # code points
    return sum(map(len, lines[: server.line])) + server.character


def apply(text: str, edit: t.TextEdit) -> str:
    lines = split_lines(text)
    start, end = offset(lines, edit.range.start), offset(lines, edit.range.end)
    return text[:start] + edit.new_text + text[end:]


def test_split_lines_only_on_real_line_breaks():
    assert split_lines("a\r\nb\x0cc\rd\ne\u2028f") == ["a\r\n", "b\x0cc\r", "d\n", "e\u2028f"]
    assert split_lines("") == [] and split_lines("x\n") == ["x\n"]


def test_only_the_changed_lines_are_replaced_and_line_endings_kept():
    before = "a = 1\r\n\x0c\r\ndef f():\r\n    return 1\r\n\r\nz = 2\r\n"
    after = before.replace("return 1", "return 2")
    edit = minimal_edit(UTF16, before, after)
    assert edit.range == t.Range(t.Position(3, 0), t.Position(4, 0))
    assert edit.new_text == "    return 2\r\n"
    assert apply(before, edit) == after


def test_a_change_on_a_last_line_without_newline_ends_in_utf16_units():
    before = "x = 1\ns = '👋'"
    after = "x = 1\ns = '👋!'"
    edit = minimal_edit(UTF16, before, after)
    assert edit.range == t.Range(t.Position(1, 0), t.Position(1, 8))  # 7 code points, 👋 is 2 units
    assert apply(before, edit) == after
