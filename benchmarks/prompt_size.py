"""Prompt size against the whole files a naive prompt would send, over examples/.

For each example: run its tests (or its script) for real, locate the top suspect, build the heal
prompt, and print side by side the characters of the prompt, of the suspect's module, and of the
module plus the failing test file. Two "full-size" cases copy real standard-library modules into a
scratch workspace, plant a one-token bug and add a test, to show how the prompt scales with the
function rather than the file.

    .venv/bin/python benchmarks/prompt_size.py [--only NAME] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

from heal_ls.heal.prompt import build_prompt
from heal_ls.locate import index_source, locate, suspect_for
from heal_ls.pysource.source import read_source
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from heal_ls.testing.script import run_script

REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO = 0.3

# stdlib module: (the buggy function, replacement of one token in it, a failing test)
FULL_SIZE = {
    "textwrap": (
        "TextWrapper._split",
        ("        if self.break_on_hyphens is True:", "        if self.break_on_hyphens is False:"),
        "from pkg.textwrap import wrap\n\n\ndef test_wrap():\n"
        "    assert wrap('a-b c', width=3) == ['a-', 'b c']\n",
    ),
    "fractions": (
        "Fraction._add",
        (
            "return Fraction(na * db + da * nb, da * db",
            "return Fraction(na * db - da * nb, da * db",
        ),
        "from pkg.fractions import Fraction\n\n\ndef test_add():\n"
        "    assert Fraction(1, 2) + Fraction(1, 3) == Fraction(5, 6)\n",
    ),
}


def example_roots() -> list[Path]:
    roots = [p for p in sorted((REPO / "examples").iterdir()) if p.is_dir() and p.name != "bench"]
    bench = REPO / "examples" / "bench"
    return roots + (sorted(p for p in bench.iterdir() if p.is_dir()) if bench.is_dir() else [])


async def measure(root: Path, name: str, target: str | None = None) -> dict | None:
    """Prompt and file sizes for the first failure; the suspect is locate's top one, or
    `target` when we planted the bug ourselves and know where it is."""
    scripts = [] if (root / "tests").is_dir() else sorted(root.glob("*/*.py"))
    if scripts:
        run = await run_script(str(root), str(scripts[0]), RunOptions(run_timeout=20))
    else:
        run = await run_pytest(str(root), RunOptions(test_timeout=3, run_timeout=90))
    for failure in run.failures:
        suspects = locate(failure, str(root), run).suspects
        if target:
            suspects = [planted_suspect(root, target)]
        if not suspects:
            continue
        suspect = suspects[0]
        module = read_source(suspect.path)
        prompt = build_prompt(suspect, module, failure, str(root), [])
        test_file = read_source(failure.test_path) if failure.test_path else ""
        return {
            "example": name,
            "suspect": suspect.qualname,
            "prompt": len(prompt.system) + len(prompt.user),
            "context": len(prompt.user),
            "module": len(module),
            "files": len(module) + len(test_file),
        }
    return None


def planted_suspect(root: Path, qualname: str):
    path = next(p for p in root.glob("pkg/*.py") if p.stem != "__init__")
    node = index_source(read_source(path)).find(qualname)
    return suspect_for(str(path), node, "the planted bug")


def plant_full_size(workdir: Path, module: str) -> Path | None:
    _, (old, new), test = FULL_SIZE[module]
    root = workdir / module
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    source = Path(__import__(module).__file__).read_text(encoding="utf-8")
    if old not in source:  # another Python version rewrote the line we break
        return None
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / f"{module}.py").write_text(source.replace(old, new, 1), encoding="utf-8")
    (root / "tests" / f"test_{module}.py").write_text(test)
    return root


def print_table(rows: list[dict]) -> None:
    print(
        f"{'example':28} {'suspect':34} {'prompt':>7} {'module':>7} {'+test':>7} "
        f"{'p/mod':>6} {'p/files':>7}"
    )
    for r in rows:
        print(
            f"{r['example']:28} {r['suspect'][:34]:34} {r['prompt']:7} {r['module']:7} "
            f"{r['files']:7} {r['prompt'] / r['module']:6.2f} {r['prompt'] / r['files']:7.2f}"
        )


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="measure only examples whose name contains this")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows, missing = [], []
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(root, root.relative_to(REPO / "examples").as_posix()) for root in example_roots()]
        for module in FULL_SIZE:
            planted = plant_full_size(Path(tmp) / "planted", module)
            (cases.append((planted, f"full-size/{module}")) if planted else missing.append(module))
        for root, name in cases:
            if args.only and args.only not in name:
                continue
            copy = Path(tmp) / "copies" / name
            shutil.copytree(root, copy, ignore=shutil.ignore_patterns("__pycache__"))
            target = FULL_SIZE[name.split("/")[1]][0] if name.startswith("full-size/") else None
            row = await measure(copy, name, target)
            (rows.append(row) if row else missing.append(name))
    if args.json:
        print(json.dumps({"rows": rows, "no_suspect": missing}, indent=2))
        return 0
    print_table(rows)
    small = [r for r in rows if not r["example"].startswith("full-size")]
    full = [r for r in rows if r["example"].startswith("full-size")]
    for label, group in (("examples", small), ("full-size", full)):
        if group:
            ratios = [r["prompt"] / r["files"] for r in group]
            context = [r["context"] / r["files"] for r in group]
            print(
                textwrap.dedent(f"""
                {label}: median prompt/(module+test) = {statistics.median(ratios):.2f}x,
                  user part only {statistics.median(context):.2f}x (target <= {TARGET_RATIO}x)""").strip()
            )
    if missing:
        print("no suspect (not measured):", ", ".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
