"""A prompt for one function of a bundled example, as the heal would build it."""

from pathlib import Path

from heal_ls.heal.prompt import build_prompt
from heal_ls.locate import index_source, suspect_for
from heal_ls.models import Failure, Frame
from heal_ls.pysource.source import read_source

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def prompt_for(example: str, rel: str, qualname: str):
    root = EXAMPLES / example
    path = root / rel
    text = read_source(path)
    node = index_source(text).find(qualname)
    suspect = suspect_for(str(path), node, "test")
    tests = sorted((root / "tests").glob("test_*.py")) if (root / "tests").is_dir() else []
    failure = Failure(
        id=f"tests/{tests[0].name}::test_x" if tests else f"script:{rel}",
        exc_type="ValueError",
        message="boom",
        frames=[Frame(str(path), node.def_line + 1, node.name, {"x": "1"})],
        test_path=str(tests[0]) if tests else None,
        test_line=1 if tests else None,
    )
    return build_prompt(suspect, text, failure, str(root), []), text
