"""locate() when a test expects `HeaderError` and the call crashed deeper with an AttributeError
(issue 22, ranking): `'BitReader' object has no attribute 'bit'` where the BitReader the test
ran defines `bits` is a misspelt name on the raising line (Python would suggest `bits`), wrong
for any input; the caller that raises HeaderError for other inputs missed no refusal, so the
raise site stays first (mutagen's `r.bit(6)` in `_skip_unused_header_bits_normal`)."""

import pytest
from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, line_of, write_project

HEADER = """\
class HeaderError(Exception):
    pass


class BitReader:
    def __init__(self, data):
        self.data = data

    def bits(self, count):
        return self.data[:count]


def skip_extra(r):
    if r.bits(1):
        size = r.bit(6)
        return size


def read_header(data):
    if not data:
        raise HeaderError("empty")
    return skip_extra(BitReader(data))
"""
TEST = """\
import pytest
from header import HeaderError, read_header


def test_extra_info_is_refused():
    with pytest.raises(HeaderError):
        read_header("xyz")
"""


@pytest.mark.parametrize(("missing", "first"), [("bit", "skip_extra"), ("width", "read_header")])
def test_a_misspelt_name_keeps_the_raise_site_first(tmp_path, missing, first):
    header = HEADER.replace("r.bit(6)", f"r.{missing}(6)")
    here, test_path = write_project(tmp_path, "header", header, TEST)
    keys = [f"{here}:{line_of(header, f'def {n}(')}" for n in ("bits", "skip_extra", "read_header")]
    crash_frames = [
        Frame(here, line_of(header, "return skip_extra("), "read_header"),
        Frame(here, line_of(header, f"r.{missing}(6)"), "skip_extra"),
    ]
    error = ("AttributeError", f"'BitReader' object has no attribute '{missing}'")
    nodeid = "tests/test_header.py::test_extra_info_is_refused"
    failure, run = failed_run(tmp_path, test_path, nodeid, 7, error, crash_frames, keys)
    located = locate(failure, str(tmp_path), run)
    assert located.suspects[0].qualname == first
