"""Source distributions from PyPI, pinned by version and sha256, unpacked once into a cache.

Used by the localise suite and by the real-bug corpus: `pip download --no-deps --no-binary :all:`
(the ordinary client, so an index or proxy the user configured applies), the archive's sha256
checked against the pin, then unpacked without its top folder into `<cache>/src/<name>-<version>`.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path


class FetchError(Exception):
    """A package could not be downloaded or does not match its pinned hash (one clear line)."""


def fetch_sdist(name: str, version: str, sha256: str, cache: Path) -> Path:
    """The unpacked sdist of `name==version`, downloaded on first use, checked against sha256."""
    unpacked = cache / "src" / f"{name}-{version}"
    if unpacked.is_dir():
        return unpacked
    archive = download(name, version, cache / "sdists" / f"{name}-{version}")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != sha256:
        raise FetchError(f"{archive} has sha256 {digest}, pinned {sha256}")
    unpacked.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=unpacked.parent) as scratch:
        unpack(archive, Path(scratch))
        tops = list(Path(scratch).iterdir())
        os.replace(tops[0] if len(tops) == 1 and tops[0].is_dir() else scratch, unpacked)
    return unpacked


def download(name: str, version: str, folder: Path) -> Path:
    """The one archive in `folder`, downloaded there with pip when it is not yet."""
    found = archives(folder)
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        spec = f"{name}=={version}"
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
        done = subprocess.run(
            [*cmd, spec, "-d", str(folder)], capture_output=True, text=True, check=False
        )
        found = archives(folder)
        if done.returncode or not found:
            raise FetchError(f"pip download {spec} failed: {done.stderr.strip()[-300:]}")
    if len(found) != 1:
        raise FetchError(f"{folder} holds {len(found)} archives, expected one")
    return found[0]


def archives(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith((".tar.gz", ".zip", ".tgz")))


def unpack(archive: Path, dest: Path) -> None:
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(dest)
        return
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # a pinned archive whose hash was checked first
            tar.extractall(dest)  # noqa: S202
