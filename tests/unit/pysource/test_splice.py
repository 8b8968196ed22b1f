"""Before/after tests for the position-exact splice, its proof, diffs and function_source."""

import ast
from dataclasses import replace

import pytest
from heal_ls.models import Suspect
from heal_ls.pysource.diff import unified_diff
from heal_ls.pysource.splice import SpliceError, function_source, splice


def suspect_at(text: str, line: int, qualname: str) -> Suspect:
    """A Suspect for the def whose first line (decorator or def) is `line`, computed with ast."""
    for node in ast.walk(ast.parse(text.lstrip("\ufeff"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if first == line:
                row = text.splitlines()[line - 1].lstrip("\ufeff")
                col = len(row) - len(row.lstrip())
                return Suspect(
                    "/w/pkg/mod.py",
                    qualname,
                    line,
                    col,
                    node.end_lineno,
                    0,
                    "test",
                    1.0,
                    node.lineno,
                )
    raise AssertionError(f"no def at line {line}")


def test_method_reindented_and_neighbours_untouched():
    before = (
        "class Inventory:\n"
        "    def add(self, item):\n"
        "        self.items.append(item)\n"
        "\n"
        "    def remove(self, item):\n"
        "        del self.items[item]\n"
        "\n"
        "    def size(self):\n"
        "        return len(self.items)\n"
    )
    answer = "def remove(self, item):\n    self.items.remove(item)\n"
    after = splice(before, suspect_at(before, 5, "Inventory.remove"), answer)
    assert after == before.replace("del self.items[item]", "self.items.remove(item)")


def test_exact_node_not_the_first_def_with_that_name():
    before = (
        "class A:\n    def run(self):\n        return 'a'\n\n"
        "class B:\n    def run(self):\n        return 'b'\n"
    )
    after = splice(before, suspect_at(before, 6, "B.run"), "def run(self):\n    return 'B'\n")
    assert after == before.replace("return 'b'", "return 'B'")


def test_nested_function():
    before = (
        "def outer(xs):\n"
        "    def inner(x):\n"
        "        return x + 1\n"
        "    return [inner(x) for x in xs]\n"
    )
    after = splice(
        before, suspect_at(before, 2, "outer.<locals>.inner"), "def inner(x):\n    return x - 1\n"
    )
    assert after == before.replace("x + 1", "x - 1")


def test_decorated_function_keeps_answer_decorators():
    before = "import functools\n\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n\n"
    answer = "@functools.cache\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    after = splice(before, suspect_at(before, 3, "fib"), answer)
    assert after == "import functools\n\n" + answer


def test_decorators_dropped_by_the_answer_are_kept():
    before = (
        "class C:\n"
        "    @staticmethod\n"
        "    # why it is static\n"
        "    @trace(level=2)\n"
        "    def parse(text):\n"
        "        return text.split()\n"
    )
    after = splice(
        before, suspect_at(before, 2, "C.parse"), "def parse(text):\n    return text.split(',')\n"
    )
    assert after == before.replace("text.split()", "text.split(',')")


def test_async_function_stays_async():
    before = "async def fetch(client, url):\n    return client.get(url)\n"
    answer = "async def fetch(client, url):\n    return await client.get(url)\n"
    assert splice(before, suspect_at(before, 1, "fetch"), answer) == answer
    with pytest.raises(SpliceError, match="must stay `async def`"):
        splice(before, suspect_at(before, 1, "fetch"), "def fetch(client, url):\n    return 1\n")


def test_property_setter_replaced_getter_untouched():
    before = (
        "class T:\n"
        "    @property\n"
        "    def value(self):\n"
        "        return self._v\n"
        "\n"
        "    @value.setter\n"
        "    def value(self, v):\n"
        "        self._v = v\n"
    )
    answer = "def value(self, v):\n    self._v = int(v)\n"
    after = splice(before, suspect_at(before, 6, "T.value"), answer)
    assert after == before.replace("self._v = v", "self._v = int(v)")


def test_getter_sent_for_the_setter_is_refused():
    before = (
        "class T:\n    @property\n    def value(self):\n        return self._v\n\n"
        "    @value.setter\n    def value(self, v):\n        self._v = v\n"
    )
    getter = "@property\ndef value(self):\n    return int(self._v)\n"
    with pytest.raises(SpliceError, match="is the @value.setter one"):
        splice(before, suspect_at(before, 6, "T.value"), getter)
    after = splice(before, suspect_at(before, 2, "T.value"), getter)
    assert after == before.replace("return self._v", "return int(self._v)")


def test_overload_implementation_replaced_stubs_untouched():
    before = (
        "from typing import overload\n\n"
        "@overload\ndef area(x: int) -> int: ...\n"
        "@overload\ndef area(x: str) -> str: ...\n"
        "def area(x):\n    return x\n"
    )
    after = splice(before, suspect_at(before, 7, "area"), "def area(x):\n    return x * 2\n")
    assert after == before.replace("return x\n", "return x * 2\n")


def test_crlf_and_tabs_kept_answer_in_spaces():
    before = "class A:\r\n\tdef f(self, x):\r\n\t\treturn x\r\n\r\n\tdef g(self):\r\n\t\tpass\r\n"
    answer = "def f(self, x):\n    if x:\n        return -x\n    return x\n"
    after = splice(before, suspect_at(before, 2, "A.f"), answer)
    expected = "class A:\r\n\tdef f(self, x):\r\n\t\tif x:\r\n\t\t\treturn -x\r\n\t\treturn x\r\n\r\n\tdef g(self):\r\n\t\tpass\r\n"
    assert after == expected


def test_two_space_module_gets_two_space_body():
    before = "class A:\n  def f(self):\n    return 1\n"
    after = splice(
        before,
        suspect_at(before, 2, "A.f"),
        "def f(self):\n    if self:\n        return 2\n    return 1\n",
    )
    assert after == "class A:\n  def f(self):\n    if self:\n      return 2\n    return 1\n"


def test_non_ascii_text_and_columns():
    before = (
        "# café ☕\nclass Café:\n    def prix(self):  # €\n        return 'été'\n    ok = 'ü'\n"
    )
    after = splice(
        before, suspect_at(before, 3, "Café.prix"), "def prix(self):  # €\n    return 'hiver ❄'\n"
    )
    assert after == before.replace("'été'", "'hiver ❄'")


def test_answer_at_column_zero_for_a_method_with_docstring():
    before = (
        "class Stack:\n"
        "    def pop(self):\n"
        '        """Remove the top.\n'
        "\n"
        '        Raises IndexError when empty."""\n'
        "        return self.items.pop(0)\n"
    )
    answer = 'def pop(self):\n    """Remove the top.\n\n    Raises IndexError when empty."""\n    return self.items.pop()\n'
    after = splice(before, suspect_at(before, 2, "Stack.pop"), answer)
    assert after == before.replace("pop(0)", "pop()")


def test_trailing_comment_block_after_the_body_is_untouched():
    before = "def f():\n    return 1\n    # keep me\n# and me\n\nx = f()\n"
    after = splice(before, suspect_at(before, 1, "f"), "def f():\n    return 2\n")
    assert after == before.replace("return 1", "return 2")


def test_continuation_lines_and_comments_follow_their_statement():
    before = "class K:\n\tdef f(self):\n\t\treturn 0\n"
    answer = "def f(self):\n  # explain\n  total = sum(\n      [1, 2],\n  )\n  return total\n"
    after = splice(before, suspect_at(before, 2, "K.f"), answer)
    assert (
        after
        == "class K:\n\tdef f(self):\n\t\t# explain\n\t\ttotal = sum(\n\t\t    [1, 2],\n\t\t)\n\t\treturn total\n"
    )


def test_bom_and_file_without_final_newline():
    before = "\ufeffdef f():\n    return 1"
    after = splice(before, suspect_at(before, 1, "f"), "def f():\n    return 2\n")
    assert after == "\ufeffdef f():\n    return 2"


def test_one_liner_in_tab_module():
    before = "class A:\n\tdef f(self): return 1\n\n\tdef g(self):\n\t\treturn 2\n"
    after = splice(before, suspect_at(before, 2, "A.f"), "def f(self):\n    x = 1\n    return x\n")
    assert (
        after
        == "class A:\n\tdef f(self):\n\t\tx = 1\n\t\treturn x\n\n\tdef g(self):\n\t\treturn 2\n"
    )


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("def discard(self, item):\n    pass\n", "must keep its name `remove`, not `discard`"),
        ("class remove:\n    pass\n", "exactly one function definition"),
        ("import os\ndef remove(self, item):\n    pass\n", "exactly one function definition"),
        ("def remove(self, item)\n    pass\n", "does not parse"),
        ("def remove(self, item):\n    return await item\n", "does not compile after the edit"),
        ("def remove(self, item):\n    nonlocal q\n", "does not compile after the edit"),
    ],
)
def test_bad_candidates_are_refused_with_a_reason(answer, reason):
    before = "class A:\n    def remove(self, item):\n        pass\n"
    with pytest.raises(SpliceError, match=reason):
        splice(before, suspect_at(before, 2, "A.remove"), answer)


def test_stale_suspect_is_refused():
    before = "def f():\n    return 1\n\ndef g():\n    return 2\n"
    stale = suspect_at(before, 4, "g")
    with pytest.raises(SpliceError, match="holds `f`, not `g`"):
        splice(
            before,
            replace(stale, start_line=1, end_line=2),
            "def g():\n    pass\n",
        )
    with pytest.raises(SpliceError, match="no function starts at line 3"):
        splice(before, replace(stale, start_line=3), "def g():\n    pass\n")
    with pytest.raises(SpliceError, match="no longer ends"):
        splice(before, replace(stale, end_line=9), "def g():\n    pass\n")


def test_function_source_is_the_def_as_it_stands():
    text = "class A:\r\n    @dec\r\n    def f(self):\r\n        return 1  # one\r\n"
    assert (
        function_source(text, suspect_at(text, 2, "A.f"))
        == "    @dec\r\n    def f(self):\r\n        return 1"
    )


def test_unified_diff_headers_and_hunk():
    before = "def f():\n    return 1\n"
    after = "def f():\n    return 2\n"
    assert unified_diff("pkg/mod.py", before, after) == (
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    )


def test_unified_diff_marks_missing_final_newline():
    diff = unified_diff("/abs/m.py", "x = 1", "x = 2")
    assert diff.startswith("--- a/abs/m.py\n+++ b/abs/m.py\n")
    assert "-x = 1\n\\ No newline at end of file\n+x = 2\n\\ No newline at end of file\n" in diff


def test_indented_candidate_with_a_string_at_column_zero():
    before = "class Q:\n    def sql(self):\n        return 'x'\n"
    answer = '    def sql(self):\n        return """\nSELECT 1\n"""\n'
    after = splice(before, suspect_at(before, 2, "Q.sql"), answer)
    assert after == 'class Q:\n    def sql(self):\n        return """\nSELECT 1\n"""\n'


def test_decorator_added_by_the_answer_is_taken():
    before = "class P:\n    def area(self):\n        return 0\n"
    answer = "@property\ndef area(self):\n    return self.w * self.h\n"
    after = splice(before, suspect_at(before, 2, "P.area"), answer)
    assert after == "class P:\n    @property\n    def area(self):\n        return self.w * self.h\n"


def test_multiline_signature_and_nested_def_in_the_answer():
    before = "class A:\n\tdef f(self, a,\n\t      b):\n\t\treturn a\n"
    answer = "def f(self, a,\n      b):\n    def g(x):\n        return x + b\n    return g(a)\n"
    after = splice(before, suspect_at(before, 2, "A.f"), answer)
    assert (
        after
        == "class A:\n\tdef f(self, a,\n\t      b):\n\t\tdef g(x):\n\t\t\treturn x + b\n\t\treturn g(a)\n"
    )


def test_module_that_never_compiled_is_named_as_such():
    before = "def f():\n    nonlocal n\n    return 1\n"
    with pytest.raises(SpliceError, match="does not compile even before the edit: line 2"):
        splice(before, suspect_at(before, 1, "f"), "def f():\n    nonlocal n\n    return 2\n")


def test_nul_bytes_are_a_clear_error():
    good = "def f():\n    return 1\n"
    with pytest.raises(SpliceError, match="null bytes"):
        splice(good + "x = '\x00'\n", suspect_at(good, 1, "f"), good)
    with pytest.raises(SpliceError, match="null bytes"):
        splice(good, suspect_at(good, 1, "f"), "def f():\n    return '\x00'\n")


@pytest.mark.parametrize("expr", ["-" * 50000 + "1", "(" * 5000 + "1" + ")" * 5000])
def test_absurdly_nested_candidates_are_a_clear_error(expr):
    before = "def f():\n    return 1\n"
    with pytest.raises(SpliceError, match=r"nested too deeply|too many nested") as err:
        splice(before, suspect_at(before, 1, "f"), f"def f():\n    return {expr}\n")
    assert "None" not in str(err.value) and len(str(err.value)) < 200


def test_old_mac_line_endings_are_kept():
    before = "x = 1\rdef f():\r    return 1\r\rdef g():\r    return 2\r"
    s = Suspect("/w/m.py", "f", 2, 0, 3, 12, "test", 1.0, 2)
    after = splice(before, s, "def f():\n    y = 2\n    return y\n")
    assert after == "x = 1\rdef f():\r    y = 2\r    return y\r\rdef g():\r    return 2\r"


def test_form_feed_before_a_def_stays_in_place():
    before = "import os\n\n\x0cdef f():\n    return 1\n\x0c\ndef g():\n    pass\n"
    s = Suspect("/w/m.py", "f", 3, 1, 4, 12, "test", 1.0, 3)
    after = splice(before, s, "def f():\n    return 2\n")
    assert after == before.replace("return 1", "return 2")


def test_unified_diff_keeps_crlf_so_the_patch_applies():
    diff = unified_diff("m.py", "a = 1\r\nb = 2\r\n", "a = 1\r\nb = 3\r\n")
    assert diff.endswith(" a = 1\r\n-b = 2\r\n+b = 3\r\n")


def test_unified_diff_of_equal_texts_is_empty():
    assert unified_diff("m.py", "x = 1\n", "x = 1\n") == ""
