"""A function that only runs in a Python process the test starts (a command-line tool run with
subprocess, as many CLI projects test themselves) is still a function the test ran: the child
records into the folder the plugin names (agent/sitecustomize.py, heal_hits.record_child)."""

import asyncio
import os
import textwrap

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest
from helpers.cli import write

PROJECT = {
    "tool/__init__.py": "",
    "tool/cli.py": (
        "import sys\n\n\ndef main(argv):\n    if not argv:\n        return 1\n"
        "    return len(argv) + 1\n\n\n"
        "if __name__ == '__main__':\n    sys.exit(main(sys.argv[1:]))\n"
    ),
    "tool/unused.py": "def never():\n    return 0\n",
    "tests/test_cli.py": (
        "import subprocess\nimport sys\n\n\ndef test_no_arguments_is_success():\n"
        "    done = subprocess.run([sys.executable, '-m', 'tool.cli'])\n"
        "    assert done.returncode == 0\n\n\n"
        "def test_one_argument():\n"
        "    done = subprocess.run([sys.executable, '-m', 'tool.cli', 'x'])\n"
        "    assert done.returncode == 2\n"
    ),
}


@pytest.fixture
def project(tmp_path):
    write(tmp_path, PROJECT)
    return tmp_path


def test_a_function_run_only_in_a_child_process_is_recorded_for_its_test(project):
    cli = os.path.realpath(project / "tool" / "cli.py")
    options = RunOptions(test_timeout=30, run_timeout=120, blocks=True)
    run = asyncio.run(run_pytest(str(project), options))
    (fail,) = run.failures
    assert fail.test.endswith("test_no_arguments_is_success")
    assert fail.covered == [f"{cli}:4"]
    assert fail.blocks == {cli: [6]}  # the branch main took in the child
    assert (run.passed, run.failed) == (1, 1)


# How the child ends once main returned: atexit runs only for the first.
ENDINGS = {
    "sys.exit": "sys.exit(main(sys.argv[1:]))",
    "os._exit": "sys.stdout.flush(); os._exit(main(sys.argv[1:]))",
    "exec": (
        "code = main(sys.argv[1:])\n"
        "    os.execv(sys.executable, [sys.executable, '-c', f'raise SystemExit({code})'])"
    ),
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_a_child_that_leaves_without_atexit_is_recorded_too(tmp_path, ending):
    cli = textwrap.dedent(
        """\
        import os
        import sys


        def main(argv):
            return len(argv) + 1 if argv else 1


        if __name__ == '__main__':
            {ending}
        """
    ).format(ending=ENDINGS[ending])
    write(tmp_path, {**PROJECT, "tool/cli.py": cli})
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=30, run_timeout=120)))
    (fail,) = run.failures  # no argument: main returns 1
    assert fail.covered == [f"{os.path.realpath(tmp_path / 'tool' / 'cli.py')}:5"]
