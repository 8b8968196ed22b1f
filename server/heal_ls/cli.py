"""Command line: heal-ls serve | check | fix | bench | index.

Each subcommand lives in its own module exposing `add_arguments(parser)` and `run(args) -> int`;
this file only wires them up, so a broken feature cannot stop the others from loading.
Exit codes: 0 success, 1 failures found / not all healed, 2 usage or internal error; 141 (as a
shell reports a writer stopped by SIGPIPE) when the reader of stdout went away (`| head`).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import os
import sys
import threading

from heal_ls import __version__

# A writer whose reader went away, as shells report it (128 + SIGPIPE).
EXIT_PIPE_CLOSED = 141
YOUNG_OBJECTS = 50_000  # new objects between two runs of the garbage collector (entry)

SUBCOMMANDS = {
    "serve": (
        "heal_ls.lsp.serve",
        "run the language server (stdio, or --tcp HOST:PORT)",
    ),
    "check": (
        "heal_ls.commands.check",
        "run tests or a script and show each failure's heal target",
    ),
    "fix": ("heal_ls.commands.fix", "heal failing functions; --apply writes verified fixes"),
    "bench": ("heal_ls.commands.bench", "heal a suite of known bugs and print a table"),
    "index": (
        "heal_ls.commands.index",
        "fill the impact map (which tests run which functions) for the project",
    ),
}


def build_parser(wanted: str | None = None) -> argparse.ArgumentParser:
    """The parser; only the `wanted` subcommand's module is imported (the server's imports are
    heavy, and `heal-ls check` should start fast)."""
    parser = argparse.ArgumentParser(prog="heal-ls", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"heal-ls {__version__}")
    subs = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub = subs.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(_module=module_name)
        if name != wanted:
            continue
        try:
            importlib.import_module(module_name).add_arguments(sub)
        except ImportError as exc:
            sub.set_defaults(_unavailable=str(exc))
    return parser


def _subcommand(argv: list[str]) -> str | None:
    return next((arg for arg in argv if arg in SUBCOMMANDS), None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(_subcommand(argv))
    args = parser.parse_args(argv)
    if getattr(args, "_unavailable", None):
        print(f"heal-ls {args.command}: unavailable ({args._unavailable})", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    # serve's stdout is the protocol channel (its log filter masks); check masks its own
    # output, after it has spawned pytest's launcher (commands/check.py)
    own = args.command == "serve" or getattr(module, "MASKS_ITS_OUTPUT", False)
    if own:
        masked: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    else:
        # lazy: the masking's patterns load only for the commands cli masks (not check's spawn)
        from heal_ls.commands.masked import masked_output

        masked = masked_output(getattr(args, "path", None))
    try:
        with masked:
            code = int(module.run(args) or 0)
            sys.stdout.flush()  # a short report still in the buffer meets a gone reader here, not at exit
            return code
    except KeyboardInterrupt:
        print("heal-ls: interrupted", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _reader_gone()
    except Exception as exc:  # one line, not a traceback dump
        print(f"heal-ls {args.command}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


def entry() -> None:
    """The `heal-ls` command (console script, `python -m heal_ls`): main(), then the process
    ends at once. What a normal exit does after the atexit handlers (free every object, tear
    down some 400 modules one by one) nobody sees the result of, and it kept `heal-ls check` of
    networkx running 0.5-0.7 s after its last handler on a loaded machine. So when no other
    thread is left to wait for, the output is flushed, the atexit handlers run as at any exit,
    and os._exit ends the process; otherwise it exits the normal way. (main() itself returns,
    for callers in-process.)

    The cyclic garbage collector runs once per YOUNG_OBJECTS new objects instead of Python's
    700: heal-ls allocates in bursts (its imports, the ASTs of the files it ranks, the run's
    report) objects that live to the end, so the default threshold ran collections that freed
    nothing; `check` of networkx spent ~10% less CPU (medians of 5: 669 -> 609 ms)."""
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    code = main()
    if threading.active_count() > 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = _reader_gone()
    atexit._run_exitfuncs()
    os._exit(code)


def _reader_gone() -> int:
    """`heal-ls check --json | head`: stop quietly. Python's own flush of stdout at exit would
    fail again and print a traceback, so stdout is pointed at /dev/null first."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_PIPE_CLOSED


if __name__ == "__main__":
    entry()
