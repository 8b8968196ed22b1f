"""Writing verified fixes: atomic, encoding and mode kept, refusing uncommitted work."""

import os
import stat
import subprocess

from heal_ls.commands.apply import has_uncommitted_changes, write_atomic


def test_write_atomic_keeps_latin1_encoding_and_mode(tmp_path):
    path = tmp_path / "m.py"
    original = "# -*- coding: latin-1 -*-\nname = 'café'\n"
    path.write_bytes(original.encode("latin-1"))
    os.chmod(path, 0o751)
    write_atomic(str(path), original.replace("café", "crème"))
    assert path.read_bytes() == "# -*- coding: latin-1 -*-\nname = 'crème'\n".encode("latin-1")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]  # no temp file left behind


def test_write_atomic_keeps_bom_and_crlf(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes("\ufeffx = 1\r\n".encode())
    write_atomic(str(path), "x = 2\r\n")  # read_source's text: the BOM is not part of it
    assert path.read_bytes() == b"\xef\xbb\xbfx = 2\r\n"


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_uncommitted_changes_detected(tmp_path):
    _git(tmp_path, "init", "-q")
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    assert has_uncommitted_changes(str(path))  # untracked: nothing to restore from
    _git(tmp_path, "add", "m.py")
    _git(tmp_path, "-c", "user.email=a@b", "-c", "user.name=t", "commit", "-qm", "init")
    assert not has_uncommitted_changes(str(path))
    path.write_text("x = 2\n")
    assert has_uncommitted_changes(str(path))


def test_outside_git_is_not_dirty(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    assert not has_uncommitted_changes(str(path))
