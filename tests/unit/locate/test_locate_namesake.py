"""locate(): a signature error names a qualname two modules of ours define (a subclass named as
its base, chameleon's `TemplateLoader`; issue 22, class Y). The refused def is the one whose
class a local of the calling frame names by module, else the one that ran; not the first the
test file's imports happen to reach."""

from heal_ls.locate import locate
from heal_ls.models import Failure, Frame

from tests.helpers.locate import line_of

BASE = """\
class Loader:
    def __init__(self, path=None):
        self.path = path
"""
SUBCLASS = """\
from pkg.loader import Loader as BaseLoader


class Loader(BaseLoader):
    def __init__(self, path=None):
        super().__init__(path)
"""
TEST = """\
class LoadTests:
    def _make(self, *args):
        klass = self._target()
        return klass(*args)

    def _target(self):
        from pkg.loader import Loader
        return Loader


class TestZpt(LoadTests):
    def _target(self):
        from pkg.zpt.loader import Loader
        return Loader

    def test_extension(self):
        self._make("here", ".pt")
"""
REFUSED = "Loader.__init__() takes from 1 to 2 positional arguments but 3 were given"


def top_path(tmp_path, klass: str | None, covered: bool) -> str:
    """Where the first suspect is, when `_make` called `klass` (a recorded local) and
    `covered` says whether the subclass's `__init__` is in the run's record."""
    for folder in ("pkg/zpt", "tests"):
        (tmp_path / folder).mkdir(parents=True)
    for path, text in {
        "pkg/__init__.py": "",
        "pkg/zpt/__init__.py": "",
        "pkg/loader.py": BASE,
        "pkg/zpt/loader.py": SUBCLASS,
        "tests/test_loader.py": TEST,
    }.items():
        (tmp_path / path).write_text(text)
    test = str(tmp_path / "tests" / "test_loader.py")
    made = {"klass": klass} if klass else {}
    failure = Failure(
        id="tests/test_loader.py::TestZpt::test_extension",
        exc_type="TypeError",
        message=REFUSED,
        frames=[
            Frame(test, line_of(TEST, 'self._make("here"'), "test_extension"),
            Frame(test, line_of(TEST, "return klass(*args)"), "_make", made),
        ],
        test_path=test,
        test_line=line_of(TEST, 'self._make("here"'),
    )
    subclass = tmp_path / "pkg" / "zpt" / "loader.py"
    failure.covered = [f"{subclass}:{line_of(SUBCLASS, 'def __init__')}"] if covered else []
    top = locate(failure, str(tmp_path)).suspects[0]
    assert top.qualname == "Loader.__init__" and "its signature refuses" in top.reason
    return top.path[len(str(tmp_path)) + 1 :]


def test_the_calling_frames_local_names_the_namesakes_module(tmp_path):
    assert top_path(tmp_path, "<class 'pkg.zpt.loader.Loader'>", False) == "pkg/zpt/loader.py"


def test_an_instance_repr_names_the_module_too(tmp_path):
    local = "<pkg.loader.Loader object at 0x7f>"
    assert top_path(tmp_path, local, True) == "pkg/loader.py"


def test_without_a_local_naming_it_the_namesake_that_ran_comes_first(tmp_path):
    assert top_path(tmp_path / "ran", None, True) == "pkg/zpt/loader.py"
    assert top_path(tmp_path / "none", None, False) == "pkg/loader.py"  # the imports' order
