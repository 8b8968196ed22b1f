"""The command line of `heal-ls fix`."""

from __future__ import annotations

import argparse

from heal_ls.commands.check import add_pytest_args
from heal_ls.heal.guard_budget import DEFAULT_SECONDS
from heal_ls.testing.invocation import interpreter


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="project root (default: .)")
    parser.add_argument("--test", action="append", default=[], metavar="NODEID")
    parser.add_argument("--script", metavar="FILE", help="heal a crashing script instead of tests")
    add_pytest_args(parser)
    parser.add_argument(
        "--python", type=interpreter, metavar="PY", help="interpreter for test runs"
    )
    parser.add_argument(
        "--provider", default="auto", choices=["auto", "anthropic", "openai", "local"]
    )
    parser.add_argument("--model", help="model name (default: the provider's documented default)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (Ollama, vLLM, ...)")
    parser.add_argument("--max-attempts", type=int, default=3, metavar="N")
    parser.add_argument("--candidates", type=int, default=1, metavar="K")
    parser.add_argument("--test-timeout", type=float, default=10.0, metavar="S")
    _budget_arguments(parser)
    _output_arguments(parser)


def _budget_arguments(parser: argparse.ArgumentParser) -> None:
    """What one heal may spend and change: time, tokens, candidates, nodes, imports."""
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds per model call, retries included (default: 60)",
    )
    parser.add_argument(
        "--local-budget", type=int, default=300, metavar="N", help="local candidates to try"
    )
    parser.add_argument(
        "--local-seconds", type=float, default=60.0, metavar="S", help="local search time limit"
    )
    parser.add_argument(
        "--verify-seconds",
        type=float,
        default=DEFAULT_SECONDS,
        metavar="S",
        help="measured guard time each candidate runs, nearest guards first; the rest run after"
        f" --apply (default {DEFAULT_SECONDS:g}, 0: every guard)",
    )
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=3,
        metavar="N",
        help="functions of the target's module a model's fix may change (default 3)",
    )
    parser.add_argument(
        "--no-imports", action="store_true", help="a model's fix may not add imports"
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=0,
        metavar="N",
        help="tokens one heal may spend (0: no cap)",
    )


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    """What happens with the result: apply, show, cache, sandbox and output options."""
    parser.add_argument("--apply", action="store_true", help="write verified fixes")
    parser.add_argument(
        "--accept-weak",
        action="store_true",
        help="with --apply, also write weak fixes (no passing test guards the function)",
    )
    parser.add_argument(
        "--accept-review",
        action="store_true",
        help="with --apply, also write fixes that need review (they add what the allow-list does"
        " not vouch for: new modules, reflection, values from the failing test)",
    )
    parser.add_argument("--force", action="store_true", help="apply even over uncommitted changes")
    parser.add_argument(
        "--show-prompt", action="store_true", help="print the prompt; no model call"
    )
    parser.add_argument("--no-cache", action="store_true", help="ignore the repair cache")
    parser.add_argument(
        "--test-env",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="pass a variable into the sandboxed test runs (repeatable)",
    )
    parser.add_argument(
        "--allow-unisolated",
        action="store_true",
        help="verify candidates even where no sandbox works (every result says so)",
    )
    parser.add_argument("--allow-test-edits", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def accepts(args: argparse.Namespace, status: str) -> bool:
    """Is a fix of this status written (with --apply)? Verified ones always; the others only
    on the user's explicit yes."""
    return {"verified": True, "weak": args.accept_weak, "review": args.accept_review}[status]
