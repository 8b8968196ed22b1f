"""The warm runner's rules: what restarts a server, what counts as workspace code, what may be
preloaded."""

from __future__ import annotations

import os
import sys
import types

import pytest
import warm_rules
from heal_ls.testing.warm.fingerprint import fingerprint


@pytest.fixture
def tree(tmp_path):
    root, site = tmp_path / "root", tmp_path / "site"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    site.mkdir()
    return root, site


def key(root, site, env=None):
    return fingerprint(str(root), str(root), env or {}, [str(site)])


def test_fingerprint_is_stable_and_ignores_workspace_code(tree):
    root, site = tree
    before = key(root, site)
    (root / "pkg" / "mod.py").write_text("x = 2\n")
    assert key(root, site) == before


@pytest.mark.parametrize(
    "change",
    [
        lambda root, site: (root / "pkg" / "conftest.py").write_text("# new\n"),
        lambda root, site: (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\nx=1\n"),
        lambda root, site: (root / "tox.ini").write_text("[pytest]\n"),
        lambda root, site: (site / "newpkg").mkdir(),
    ],
    ids=["new-conftest", "pyproject", "tox-ini", "package-installed"],
)
def test_fingerprint_changes_with_config_and_packages(tree, change):
    root, site = tree
    before = key(root, site)
    change(root, site)
    assert key(root, site) != before


def test_fingerprint_changes_with_interpreter_startup_env(tree):
    root, site = tree
    assert key(root, site, {"PYTHONHASHSEED": "1"}) != key(root, site, {"PYTHONHASHSEED": "2"})
    assert key(root, site, {"HEAL_LS_REPORT": "a"}) == key(root, site, {"HEAL_LS_REPORT": "b"})


def test_conftest_inside_virtualenv_and_hidden_dirs_is_not_watched(tree):
    root, site = tree
    (root / "venv2").mkdir()
    (root / "venv2" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / ".hidden").mkdir()
    before = key(root, site)
    (root / "venv2" / "conftest.py").write_text("")
    (root / ".hidden" / "conftest.py").write_text("")
    assert key(root, site) == before


def test_installed_packages_inside_the_root_are_not_workspace():
    prefix = os.path.realpath(sys.prefix)
    if not os.path.realpath(pytest.__file__).startswith(prefix + os.sep):
        pytest.skip("pytest is not installed under sys.prefix here")
    root = os.path.dirname(prefix)  # a project holding its own virtualenv
    assert not warm_rules.is_workspace(pytest.__file__, root)
    assert warm_rules.is_workspace(os.path.join(root, "calc.py"), root)
    assert not warm_rules.is_workspace(os.path.join(root + "-other", "calc.py"), root)


def test_server_refuses_to_fork_with_a_workspace_module_loaded(tmp_path):
    name = "heal_test_workspace_module_xyz"
    module = types.ModuleType(name)
    module.__file__ = str(tmp_path / "mod.py")
    sys.modules[name] = module
    try:
        with pytest.raises(RuntimeError, match="workspace module"):
            warm_rules.assert_no_workspace_modules(os.path.realpath(tmp_path))
    finally:
        del sys.modules[name]
        warm_rules._checked.discard(name)


class _FakeRewriteLoader:
    pass


_FakeRewriteLoader.__name__ = "AssertionRewritingHook"


@pytest.mark.parametrize(
    ("name", "where", "loader", "learn"),
    [
        ("thirdparty", "site", None, True),
        ("thirdparty.sub", "site", None, True),
        ("hypothesis.core", "site", None, False),  # marked for assertion rewriting
        ("rewritten", "site", _FakeRewriteLoader(), False),
        ("calc", "root", None, False),  # workspace code
        ("pkg", "site", None, False),  # shadowed by the workspace's own pkg/
        ("__main__", "site", None, False),
    ],
)
def test_what_a_child_may_teach_the_server_to_preload(tree, name, where, loader, learn):
    root, site = tree
    module = types.ModuleType(name)
    folder = site if where == "site" else root
    module.__file__ = str(folder / (name.replace(".", "_") + ".py"))
    module.__loader__ = loader
    learned = warm_rules.learnable(name, module, str(root), [str(site)], {"hypothesis"})
    assert learned is learn


SERVER_FILES = [
    "warm_server.py",
    "warm_child.py",
    "warm_rules.py",
    "warm_rewritten.py",
    "warm_sandbox.py",
    "warm_mounts.py",
]


@pytest.mark.parametrize("name", SERVER_FILES)
def test_server_side_files_need_only_stdlib_pytest_and_each_other(name):
    """They run under the user's interpreter, where heal-ls is usually not installed: stdlib,
    pytest, each other, the wire format and the exchange-file reader (heal_protocol and
    heal_exchange, stdlib-only, in the same folder)."""
    import ast
    from pathlib import Path

    source = (Path(warm_rules.__file__).parent / name).read_text()
    allowed = set(sys.stdlib_module_names) | {"pytest", "_pytest"}
    allowed |= {file.removesuffix(".py") for file in SERVER_FILES} | {
        "heal_protocol",
        "heal_exchange",
    }
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            tops = [alias.name.partition(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            tops = [node.module.partition(".")[0]]
        else:
            continue
        assert set(tops) <= allowed, f"{name} imports {tops}"


def test_huge_output_keeps_head_and_tail(tmp_path):
    from heal_ls.testing.warm.process import read_output

    path = tmp_path / "out"
    path.write_bytes(b"HEAD" + b"x" * 10_000 + b"TAIL")
    text = read_output(str(path), limit=1000)
    assert text.startswith("HEAD") and text.endswith("TAIL") and "bytes of output cut" in text
    assert len(text) < 1100
    path.write_bytes(b"small")
    assert read_output(str(path), limit=1000) == "small"
