"""source.py: bytes -> text the way Python reads a module, and back."""

import codecs

import pytest
from heal_ls.pysource.source import (
    SourceError,
    byte_col_to_char,
    decode_source,
    encode_source,
    read_source,
    split_lines,
)


def test_crlf_is_kept():
    assert decode_source(b"x = 1\r\ny = 2\r\n") == "x = 1\r\ny = 2\r\n"


def test_bom_is_dropped_and_put_back():
    data = codecs.BOM_UTF8 + "name = 'é'\n".encode()
    text = decode_source(data)
    assert text == "name = 'é'\n"
    assert encode_source(text, data) == data


def test_pep263_cookie_decides_the_encoding():
    data = "# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1")
    text = decode_source(data)
    assert text == "# -*- coding: latin-1 -*-\nname = 'café'\n"
    assert encode_source(text, data) == data


def test_cookie_on_second_line_counts():
    data = "#!/usr/bin/env python\n# coding: cp1252\nx = '€'\n".encode("cp1252")
    assert decode_source(data).endswith("x = '€'\n")


def test_unknown_cookie_is_a_clear_error():
    with pytest.raises(SourceError, match="unknown encoding"):
        decode_source(b"# coding: no-such-codec\nx = 1\n")


def test_undecodable_bytes_name_the_line(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = 1\ny = '\xff\xfe'\n")
    with pytest.raises(SourceError) as info:
        read_source(path)
    assert "bad.py" in str(info.value) and "line 2" in str(info.value)


def test_read_source_keeps_tabs_and_crlf(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"def f():\r\n\treturn 1\r\n")
    assert read_source(path) == "def f():\r\n\treturn 1\r\n"


def test_encode_without_original_is_utf8():
    assert encode_source("é") == "é".encode()


def test_split_lines_breaks_only_where_python_does():
    text = "a = 1\r\nb = '\x0c\u2028'\rc = 3\n"
    assert split_lines(text) == ["a = 1", "b = '\x0c\u2028'", "c = 3", ""]


def test_byte_columns_become_code_points():
    line = "    s = 'héllo' + x"
    assert byte_col_to_char(line, len("    s = 'héllo'".encode())) == len("    s = 'héllo'")
    assert byte_col_to_char("plain", 3) == 3
