"""Taking the target def out of model answers of every shape, and clear errors when it is missing."""

import pytest
from heal_ls.heal.answer import AnswerError, extract_function

FIXED = "def remove(self, item):\n    self.items.remove(item)\n"


def test_plain_fence_with_prose_around():
    answer = f"The bug is the off-by-one.\n\n```python\n{FIXED}```\n\nThis keeps the order."
    assert extract_function(answer, "remove") == FIXED


@pytest.mark.parametrize("tag", ["", "py", "python3", "Python", "diff-free"])
def test_any_language_tag_or_none(tag):
    assert extract_function(f"```{tag}\n{FIXED}```", "remove") == FIXED


def test_tilde_fence_and_longer_fence():
    assert extract_function(f"~~~\n{FIXED}~~~", "remove") == FIXED
    assert extract_function(f"````python\n{FIXED}````", "remove") == FIXED


def test_unclosed_fence_runs_to_the_end():
    assert extract_function(f"Here:\n```python\n{FIXED}", "remove") == FIXED


def test_no_fence_at_all():
    assert extract_function(FIXED, "remove") == FIXED


def test_unfenced_def_inside_prose():
    answer = f"Replace it with:\n\n{FIXED}\nThat should do it."
    assert extract_function(answer, "remove") == FIXED


def test_several_blocks_take_the_one_defining_the_target():
    answer = (
        "First a helper test:\n```python\ndef test_remove():\n    assert True\n```\n"
        f"Then the fix:\n```python\n{FIXED}```\nRun `pytest -q`:\n```bash\npytest -q\n```\n"
    )
    assert extract_function(answer, "remove") == FIXED


def test_the_last_block_defining_the_target_is_the_fix():
    before = "def remove(self, item):\n    del self.items[item]\n"
    answer = f"You had:\n```python\n{before}```\nIt should be:\n```python\n{FIXED}```"
    assert extract_function(answer, "remove") == FIXED


def test_method_inside_a_whole_class():
    answer = (
        "```python\nclass Inventory:\n    def add(self, item):\n        self.items.append(item)\n\n"
        "    def remove(self, item):\n        self.items.remove(item)\n```"
    )
    assert extract_function(answer, "remove", "Inventory") == FIXED


def test_method_of_the_named_class_wins_over_a_function_of_the_same_name():
    answer = (
        "```python\ndef remove(x):\n    return x\n\nclass Other:\n    def remove(self):\n"
        "        return 0\n\nclass Inventory:\n    def remove(self, item):\n"
        "        self.items.remove(item)\n```"
    )
    assert extract_function(answer, "remove", "Inventory") == FIXED
    assert extract_function(answer, "remove") == "def remove(x):\n    return x\n"


def test_whole_module_around_the_function():
    answer = f"```python\nimport os\n\nLIMIT = 3\n\n\n{FIXED}\n\nif __name__ == '__main__':\n    pass\n```"
    assert extract_function(answer, "remove") == FIXED


def test_method_written_at_column_zero_with_deeper_body():
    answer = "```python\ndef remove(self, item):\n        self.items.remove(item)\n```"
    assert (
        extract_function(answer, "remove")
        == "def remove(self, item):\n        self.items.remove(item)\n"
    )


def test_indented_block_with_string_at_column_zero():
    answer = '```python\n    def remove(self):\n        s = """\nleft\n"""\n        return s\n```'
    assert (
        extract_function(answer, "remove")
        == 'def remove(self):\n    s = """\nleft\n"""\n    return s\n'
    )


def test_crlf_and_tabs():
    answer = "```python\r\nclass A:\r\n\tdef remove(self, item):\r\n\t\treturn item\r\n```\r\n"
    assert extract_function(answer, "remove", "A") == "def remove(self, item):\n\treturn item\n"


def test_decorators_come_with_the_def():
    answer = "```python\n@staticmethod\n@cache\ndef remove(item):\n    return item\n```"
    assert extract_function(answer, "remove").startswith("@staticmethod\n@cache\ndef remove")


def test_property_setter_chosen_by_the_original_decorators():
    answer = (
        "```python\nclass T:\n    @property\n    def value(self):\n        return self._v\n\n"
        "    @value.setter\n    def value(self, v):\n        self._v = int(v)\n```"
    )
    setter = extract_function(
        answer,
        "value",
        "T",
        original="    @value.setter\n    def value(self, v):\n        self._v = v\n",
    )
    getter = extract_function(
        answer, "value", "T", original="    @property\n    def value(self):\n        return 0\n"
    )
    assert setter == "@value.setter\ndef value(self, v):\n    self._v = int(v)\n"
    assert getter == "@property\ndef value(self):\n    return self._v\n"


def test_overloads_in_the_answer_pick_the_implementation():
    answer = (
        "```python\n@overload\ndef area(x: int) -> int: ...\n@overload\ndef area(x: str) -> str: ...\n"
        "def area(x):\n    return x * 2\n```"
    )
    assert extract_function(answer, "area") == "def area(x):\n    return x * 2\n"


def test_think_section_of_reasoning_models_is_ignored():
    answer = f"<think>maybe\n```python\ndef remove(self, item):\n    pass\n```\n</think>\n```python\n{FIXED}```"
    assert extract_function(answer, "remove") == FIXED


def test_async_def():
    answer = "```python\nasync def fetch(url):\n    return await get(url)\n```"
    assert extract_function(answer, "fetch").startswith("async def fetch(url):")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (
            "I'm sorry, I cannot help with that.",
            "the answer has no Python code block defining `remove`",
        ),
        ("", "the answer has no Python code block defining `remove`"),
        ("```python\ndef remove(self, item:\n    pass\n```", "the code does not parse: line 1"),
        (
            "```python\ndef discard(self, item):\n    pass\n```",
            "defines `discard` but no function `remove`",
        ),
        ("```python\nclass remove:\n    pass\n```", "`remove` is a class in the answer"),
        (
            "```python\nremove = lambda self, item: None\n```",
            "no Python code block defining `remove`",
        ),
    ],
)
def test_hostile_or_useless_answers_say_why(answer, reason):
    with pytest.raises(AnswerError) as err:
        extract_function(answer, "remove")
    assert reason in str(err.value)


def test_syntax_error_names_the_line_and_the_text():
    answer = "```python\ndef remove(self, item):\n    x = \n    return x\n```"
    with pytest.raises(AnswerError, match=r"line 2: .*`x =`"):
        extract_function(answer, "remove")


@pytest.mark.parametrize(
    "elision",
    [
        "# ... existing code ...",
        "# rest of the function unchanged",
        "# Remainder of the method as before",
        "# original logic stays here",
    ],
)
def test_elided_functions_are_refused(elision):
    answer = f"```python\ndef remove(self, item):\n    {elision}\n    self.items.remove(item)\n```"
    with pytest.raises(AnswerError, match="the function is incomplete"):
        extract_function(answer, "remove")


def test_ordinary_comments_are_not_elisions():
    answer = "```python\ndef remove(self, item):\n    # keep the existing order of items\n    return 1\n```"
    assert "keep the existing order" in extract_function(answer, "remove")


def test_stub_body_is_refused_unless_the_original_is_a_stub():
    answer = '```python\ndef remove(self, item):\n    """Remove it."""\n    ...\n```'
    with pytest.raises(AnswerError, match="only `...`"):
        extract_function(answer, "remove", original="def remove(self, item):\n    return 1\n")
    assert extract_function(answer, "remove", original="    def remove(self, item): ...\n")


def test_a_diff_instead_of_a_function_says_so():
    answer = "```diff\n--- a/inv.py\n+++ b/inv.py\n@@ -3,2 +3,2 @@\n-    del x\n+    pass\n```"
    with pytest.raises(
        AnswerError, match="the answer is a diff; send the whole corrected function"
    ):
        extract_function(answer, "remove")


def test_a_complete_block_wins_over_a_later_elided_one():
    answer = (
        f"Full fix:\n```python\n{FIXED}```\nIn short:\n```python\n"
        "def remove(self, item):\n    # ... rest unchanged\n    return None\n```"
    )
    assert extract_function(answer, "remove") == FIXED
    with pytest.raises(AnswerError, match="incomplete"):
        extract_function(answer.split("In short:")[1], "remove")


def test_no_break_and_zero_width_spaces_in_indentation_become_spaces():
    answer = "```python\ndef f(x):\n\u00a0\u00a0\u00a0\u00a0y = '\u00a0'\n\u200b    return y\n```"
    assert extract_function(answer, "f") == "def f(x):\n    y = '\u00a0'\n    return y\n"


def test_fences_inside_a_docstring_do_not_cut_the_function():
    answer = 'Fix:\n```python\ndef render(x):\n    """Render.\n\n    ```\n    render(1)\n    ```\n    """\n    return str(x)\n```\nDone.'
    assert extract_function(answer, "render").endswith('    ```\n    """\n    return str(x)\n')
