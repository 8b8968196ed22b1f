"""An exchange file is read only when it is a plain file of its own, and never past a limit."""

from __future__ import annotations

import errno
import os

import pytest
from heal_exchange import read_exchange


def test_plain_file_is_read_up_to_the_limit(tmp_path):
    path = tmp_path / "report.jsonl"
    path.write_bytes(b"x" * 100)
    assert read_exchange(str(path), 10) == b"x" * 10


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda path, private: os.symlink(private, path), errno.ELOOP),
        (lambda path, private: os.link(private, path), errno.EPERM),
        (lambda path, private: os.mkfifo(path), errno.EPERM),
        (lambda path, private: os.mkdir(path), errno.EPERM),
    ],
    ids=["symlink", "hard link", "fifo", "directory"],
)
def test_anything_but_a_plain_file_is_refused(tmp_path, make, code):
    private = tmp_path / "private"
    private.write_text("secret")
    path = tmp_path / "out"
    make(str(path), str(private))
    with pytest.raises(OSError) as raised:
        read_exchange(str(path), 100)
    assert raised.value.errno == code
