"""The local repairer: for one buggy function per mutation class, the reference fix is found early."""

from __future__ import annotations

import ast
import itertools
import textwrap
from pathlib import Path

import pytest
from heal_ls.repair import normalised
from heal_ls.repair.local import LocalRepairer


def rank_of(buggy: str, fixed: str, focus=(), first_line=1, limit=2000) -> int | None:
    """Position of the reference fix among the candidates (0 = first), None if not in `limit`."""
    target = normalised(fixed)
    assert target is not None and target != normalised(buggy)
    candidates = LocalRepairer().candidates(buggy, list(focus), first_line)
    for index, candidate in enumerate(itertools.islice(candidates, limit)):
        if normalised(candidate) == target:
            return index
    return None


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


HANG = (Path(__file__).resolve().parents[3] / "examples/hang/lookup/search.py").read_text()
HANG_BUGGY = HANG[HANG.index("def insertion_point") : HANG.index("\n\n\ndef contains")] + "\n"

# (case id, buggy, fixed, focus lines counted from 1 = the def line, max acceptable rank)
CASES = [
    (
        "compare",
        "def is_adult(age):\n    return age > 18\n",
        "def is_adult(age):\n    return age >= 18\n",
        [2],
        3,
    ),
    (
        "arith",
        "def area(w, h):\n    return w + h\n",
        "def area(w, h):\n    return w * h\n",
        [2],
        5,
    ),
    (
        "index",
        "def last(xs):\n    return xs[len(xs)]\n",
        "def last(xs):\n    return xs[len(xs) - 1]\n",
        [2],
        10,
    ),
    (
        "range",
        src("""
        def total_upto(n):
            total = 0
            for i in range(n):
                total += i
            return total
        """),
        src("""
        def total_upto(n):
            total = 0
            for i in range(n + 1):
                total += i
            return total
        """),
        [],
        20,
    ),
    (
        "assigned-bound",  # the bundled examples/hang: `lo = mid` never ends
        HANG_BUGGY,
        HANG_BUGGY.replace("lo = mid\n", "lo = mid + 1\n"),
        [7],
        20,
    ),
    (
        "slice",
        "def tail(xs):\n    return xs[2:]\n",
        "def tail(xs):\n    return xs[1:]\n",
        [2],
        5,
    ),
    (
        "boolop",
        "def in_range(x, lo, hi):\n    return lo <= x or x <= hi\n",
        "def in_range(x, lo, hi):\n    return lo <= x and x <= hi\n",
        [2],
        15,
    ),
    (
        "negate",
        src("""
        def first_even(xs):
            for x in xs:
                if x % 2:
                    return x
            return None
        """),
        src("""
        def first_even(xs):
            for x in xs:
                if not (x % 2):
                    return x
            return None
        """),
        [],
        30,
    ),
    (
        "swap-args",
        src("""
        def gcd(a, b):
            if b == 0:
                return a
            return gcd(a % b, b)
        """),
        src("""
        def gcd(a, b):
            if b == 0:
                return a
            return gcd(b, a % b)
        """),
        [4],
        15,
    ),
    (
        "swap-elements",
        "def div_mod(a, b):\n    return a % b, a // b\n",
        "def div_mod(a, b):\n    return a // b, a % b\n",
        [],
        15,
    ),
    (
        "name",
        src("""
        def scale(values, factor):
            result = []
            for v in values:
                result.append(v * factor)
            return values
        """),
        src("""
        def scale(values, factor):
            result = []
            for v in values:
                result.append(v * factor)
            return result
        """),
        [5],
        15,
    ),
    (
        "any-all",
        "def all_positive(xs):\n    return any(x > 0 for x in xs)\n",
        "def all_positive(xs):\n    return all(x > 0 for x in xs)\n",
        [],
        3,
    ),
    (
        "min-max",
        "def largest(xs):\n    return min(xs)\n",
        "def largest(xs):\n    return max(xs)\n",
        [],
        2,
    ),
    (
        "lost-accumulation",
        "def total(xs):\n    t = 0\n    for x in xs:\n        t = x\n    return t\n",
        "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n",
        [4],
        3,
    ),
    (
        "opposite-method",
        "def shout(s):\n    return s.lower() + '!'\n",
        "def shout(s):\n    return s.upper() + '!'\n",
        [2],
        3,
    ),
    (
        "int-float",
        "def parse_amount(text):\n    return int(text.strip())\n",
        "def parse_amount(text):\n    return float(text.strip())\n",
        [2],
        3,
    ),
    (
        "true-false",
        src("""
        def contains(xs, y):
            for x in xs:
                if x == y:
                    return False
            return False
        """),
        src("""
        def contains(xs, y):
            for x in xs:
                if x == y:
                    return True
            return False
        """),
        [],
        30,  # a returned constant flipped: an overfitting shape, tried after the other edits
    ),
    (
        "drop-statement",
        src("""
        def ascending(xs):
            xs = sorted(xs)
            xs.reverse()
            return xs
        """),
        src("""
        def ascending(xs):
            xs = sorted(xs)
            pass
            return xs
        """),
        [],
        40,
    ),
    (
        "guard",
        "def mean(xs):\n    return sum(xs) / len(xs)\n",
        "def mean(xs):\n    if not xs:\n        return 0\n    return sum(xs) / len(xs)\n",
        [2],
        30,
    ),
    (
        "clamp",
        "def remaining(stock, sold):\n    left = stock - sold\n    return left\n",
        "def remaining(stock, sold):\n    left = max(0, stock - sold)\n    return left\n",
        [],
        40,
    ),
    (
        "missing-return",
        "def double(x):\n    y = x * 2\n",
        "def double(x):\n    y = x * 2\n    return y\n",
        [],
        3,
    ),
    (
        "base-case",
        "def fact(n):\n    return n * fact(n - 1)\n",
        "def fact(n):\n    if n == 0:\n        return 1\n    return n * fact(n - 1)\n",
        [2],
        12,
    ),
]


@pytest.mark.parametrize(
    "buggy, fixed, focus, max_rank", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_reference_fix_is_ranked_early(buggy, fixed, focus, max_rank):
    rank = rank_of(buggy, fixed, focus)
    assert rank is not None, "reference fix not generated"
    assert rank <= max_rank


def test_second_order_fix_is_found_after_first_order():
    buggy = "def sort(arr):\n    if len(arr) == 0:\n        return arr\n    return arr\n"
    fixed = "def sort(arr):\n    if len(arr) <= 1:\n        return arr\n    return arr\n"
    rank = rank_of(buggy, fixed, [2])
    single = sum(1 for _ in LocalRepairer(second_order=False).candidates(buggy, [2], 1))
    assert rank is not None and rank >= single


def test_method_keeps_indentation_decorator_and_comments():
    buggy = (
        "    @staticmethod\n"
        "    def clamp(x, lo, hi):  # keep me\n"
        "        return max(lo, max(x, hi))\n"
    )
    fixed = buggy.replace("max(x, hi)", "min(x, hi)")
    candidates = list(LocalRepairer().candidates(buggy, [12], 10))
    assert fixed in candidates[:10]
    for candidate in candidates:
        assert candidate.startswith("    @staticmethod\n    def clamp(x, lo, hi):  # keep me")


def test_crlf_line_endings_are_kept():
    buggy = "def f(x):\r\n    y = x - 1\r\n    return y\r\n"
    candidates = list(LocalRepairer(second_order=False).candidates(buggy, [], 1))
    assert "def f(x):\r\n    y = x + 1\r\n    return y\r\n" in candidates
    for candidate in candidates:
        assert "\n" not in candidate.replace("\r\n", "")


def test_every_candidate_parses_differs_and_is_unique():
    buggy = src("""
        def window_sums(xs, k):
            # sums of each window of k items
            out = []
            for i in range(len(xs) - k):
                out.append(sum(xs[i:i + k]))
            return out if xs and k > 0 else []
        """)
    original = normalised(buggy)
    seen = set()
    for candidate in itertools.islice(LocalRepairer().candidates(buggy, [4], 1), 1500):
        key = normalised(candidate)
        assert key is not None and key != original and key not in seen
        seen.add(key)
        assert "# sums of each window of k items" in candidate
        assert isinstance(ast.parse(candidate).body[0], ast.FunctionDef)
    assert len(seen) > 100


def test_single_mutations_change_one_small_region():
    buggy = src("""
        def f(a,b):   # odd spacing is kept
            x = [ a ,b ]
            return x[0]+x[1]
        """)
    for candidate in LocalRepairer(second_order=False).candidates(buggy, [], 1):
        changed = [
            n for n, (x, y) in enumerate(zip(buggy.splitlines(), candidate.splitlines())) if x != y
        ]
        assert len(changed) <= 1 or candidate.count("\n") != buggy.count("\n")
        assert candidate.splitlines()[0] == "def f(a,b):   # odd spacing is kept"


@pytest.mark.parametrize("bad", ["def f(:\n    pass\n", "x = 1\n", "", "class A:\n    pass\n"])
def test_bad_input_yields_nothing(bad):
    assert list(LocalRepairer().candidates(bad, [1], 1)) == []


def test_local_call_arguments_are_nudged():
    buggy = src("""
        def find(arr, x):
            def search(start, end):
                if start == end:
                    return -1
                mid = (start + end) // 2
                if x < arr[mid]:
                    return search(start, mid)
                elif x > arr[mid]:
                    return search(mid, end)
                return mid
            return search(0, len(arr))
        """)
    fixed = buggy.replace("search(mid, end)", "search(mid + 1, end)")
    rank = rank_of(buggy, fixed, [9])
    assert rank is not None and rank <= 20


def test_missing_append_is_added():
    buggy = src("""
        def wrap(text, cols):
            lines = []
            while len(text) > cols:
                end = text.rfind(" ", 0, cols + 1)
                if end == -1:
                    end = cols
                line, text = text[:end], text[end:]
                lines.append(line)

            return lines
        """)
    fixed = buggy.replace("\n    return lines", "    lines.append(text)\n    return lines")
    assert rank_of(buggy, fixed, []) is not None


def test_nested_function_with_nonlocal_gets_candidates():
    buggy = (
        "    def increment():\n        nonlocal count\n        count += 2\n        return count\n"
    )
    fixed = buggy.replace("+= 2", "+= 1")
    assert rank_of(buggy, fixed, [3], first_line=5) is not None


LINKED = {
    "none-check": (
        src("""
        def detect_cycle(node):
            hare = tortoise = node
            while True:
                if hare.successor is None:
                    return False
                tortoise = tortoise.successor
                hare = hare.successor.successor
                if hare is tortoise:
                    return True
        """),
        ("if hare.successor is None:", "if hare is None or hare.successor is None:"),
    ),
    "missing-assignment": (
        src("""
        def reverse_linked_list(node):
            prevnode = None
            while node:
                nextnode = node.successor
                node.successor = prevnode
                node = nextnode
            return prevnode
        """),
        ("        node = nextnode\n", "        prevnode = node\n        node = nextnode\n"),
    ),
    "missing-add": (
        src("""
        def depth_first_search(startnode, goalnode):
            nodesvisited = set()

            def search_from(node):
                if node in nodesvisited:
                    return False
                elif node is goalnode:
                    return True
                else:
                    return any(search_from(nextnode) for nextnode in node.successors)

            return search_from(startnode)
        """),
        ("else:\n", "else:\n            nodesvisited.add(node)\n"),
    ),
}


@pytest.mark.parametrize("case", sorted(LINKED))
def test_code_adding_templates_for_linked_structures(case):
    buggy, (old, new) = LINKED[case]
    fixed = buggy.replace(old, new, 1)
    if case == "missing-add":  # the nested function is the suspect
        buggy, fixed = (text.split("\n\n")[1] + "\n" for text in (buggy, fixed))
    rank = rank_of(buggy, fixed, [])
    assert rank is not None and rank < 300
