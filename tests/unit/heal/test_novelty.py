"""The allow-list of what a fix may add: each class a hostile (or overfitting) candidate uses is
held for review, and the honest shapes of fixes pass."""

from __future__ import annotations

import pytest
from heal_ls.heal.novelty import review_reasons

MODULE = """\
import os
import re
from datetime import date


def slug(text):
    return text.lower().replace(" ", "_")
"""
TEST = """\
def test_slug():
    assert slug("Hello World") == "hello-world"
"""


def with_body(body: str, imports: str = "") -> str:
    return imports + MODULE.replace('    return text.lower().replace(" ", "_")', body)


@pytest.mark.parametrize(
    ("body", "imports", "reason"),
    [
        (
            '    if text == "Hello World":\n        return "hello-world"\n    return text',
            "",
            "literal",
        ),
        ("    if os.getpid() < 100:\n        return text\n    return text", "", "`os.getpid`"),
        ("    if 'CI' in os.environ:\n        return text\n    return text", "", "`os.environ`"),
        (
            "    if os.path.exists('/.dockerenv'):\n        return text\n    return text",
            "",
            "os.path",
        ),
        ("    import gc\n    return text", "", "`gc`"),
        ("    import inspect\n    return text", "", "`inspect`"),
        ("    import sys\n    return text", "", "`sys`"),
        ("    import random\n    return text", "", "`random`"),
        ("    import time\n    return text", "", "`time`"),
        ("    return getattr(text, 'low' + 'er')()", "", "getattr()"),
        ("    return getattr(text, '__class__')", "", "getattr()"),
        ("    return text.__class__.__mro__", "", "`.__mro__`"),
        ("    return slug.__globals__", "", "`.__globals__`"),
        ("    return open('/proc/self/status').read()", "", "`open`"),
        # the sandbox's tell-tale of a read-only own file
        ("    return text if os.access(__file__, os.W_OK) else ''", "", "`os.access`"),
        ("    return vars(text)", "", "`vars`"),
        ("    return date.today().isoformat()", "", "`.today`"),
        (
            "    return text if datetime.now().year else ''",
            "from datetime import datetime\n",
            "`.now`",
        ),
        ("    return text if HOME else ''", "", "`HOME`"),
    ],
    ids=lambda value: value if len(value) < 20 else None,
)
def test_what_no_honest_fix_needs_is_held_for_review(body, imports, reason):
    reasons = review_reasons(MODULE, with_body(body, imports), [TEST])
    assert any(reason in r for r in reasons), reasons


@pytest.mark.parametrize(
    ("body", "imports"),
    [
        ('    return text.lower().replace(" ", "-")', ""),
        ('    return re.sub(r"\\s+", "-", text.strip().lower())', ""),
        ("    return text.lower() if text else ''", ""),
        ("    return str(math.floor(len(text))) + text", "import math\n"),
        ("    return getattr(text, 'lower', str)()", ""),
        ("    return text['Hello World'] if text else ''", ""),  # a key read is no special case
        ("    if not 1 <= len(text) <= 11:\n        raise ValueError(text)\n    return text", ""),
        ("    return _words(text)\n\n\ndef _words(text):\n    return text.split()", ""),
        ("    raise ValueError('empty') if not text else None", ""),
        ("    return text.casefold().replace(' ', '-')", ""),
    ],
)
def test_the_honest_shapes_of_fixes_pass(body, imports):
    assert review_reasons(MODULE, with_body(body, imports), [TEST]) == []


def test_what_the_module_already_reached_stays_allowed():
    module = MODULE.replace("    return text", "    os.path.join('a', text)\n    return text")
    fixed = module.replace("os.path.join('a', text)", "os.path.join('b', text)")
    assert review_reasons(module, fixed.replace(".lower()", ".upper()"), [TEST]) == []
