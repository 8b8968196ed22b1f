"""locate(): PLY reads its grammar from docstrings (`def p_call(self, p): "term : NAME '(' ')'"`,
`def t_NAME(self, t): r"[a-z]+"`), so the rule an input needs and the grammar lacks never runs.
When PLY's error callback of ours got a token of the test's own text, the grammar's rules are the
suspects, ordered by what the error shows: the rules the parser was inside (its symbol stack),
the rules taking the refused token, the lexer's rules in the order PLY tries them (issue 22,
class O: jsonpath-ng's `p_slice`, `p_fields_or_any`, `t_ID`, pycparser's
`p_direct_abstract_declarator_3`)."""

from heal_ls.models import Frame

from tests.helpers.locate import failing_test, line_of, ranked_among_passing, write_project

CALC = '''\
class ParseError(Exception):
    pass


class CalcLexer:
    states = (("quoted", "exclusive"),)
    tokens = ("NUMBER", "NAME")
    literals = ["+", "(", ")"]

    def tokenize(self, text):
        return self.engine.input(text)

    def t_quoted_text(self, t):
        r"[^']+"
        return t

    def t_NUMBER(self, t):
        r"\\d+"
        return t

    def t_NAME(self, t):
        r"[a-z]+"
        return t

    def t_error(self, t):
        raise ParseError(t.value[0])


class CalcParser:
    def parse(self, text):
        return self.engine.parse(text)

    def p_sum(self, p):
        """expr : expr '+' term
                | term"""
        p[0] = p[1] if len(p) == 2 else p[1] + p[3]

    def p_term(self, p):
        """term : NUMBER
                | '(' expr ')'"""
        p[0] = p[1] if len(p) == 2 else p[2]

    def p_call(self, p):
        "term : NAME '(' ')'"
        p[0] = p[1]

    def p_error(self, t):
        raise ParseError(t)
'''
TEST = """\
from calc import CalcParser


def test_calc():
    assert CalcParser().parse("f(2)") == "f"
    assert CalcParser().parse("1++2") == 3
    assert CalcParser().parse("\u00e4") == 0
"""
LIBRARY = "/usr/lib/python3/site-packages/ply/yacc.py"  # an installed PLY: not the workspace's


def ranked(tmp_path, text: str, token: str, stack: str | None = None, lexer=False) -> list[str]:
    here, test_path = write_project(tmp_path, "calc", CALC, TEST)
    entry = "tokenize" if lexer else "parse"
    callback = "t_error" if lexer else "p_error"
    frames = [
        Frame(
            here,
            line_of(CALC, f"return self.engine.{'input' if lexer else 'parse'}"),
            entry,
            {"self": "<calc.CalcParser object>", "text": repr(text)},
        ),
        Frame(LIBRARY, 1199, "parseopt_notrack", {"symstack": stack} if stack else {}),
        Frame(
            here,
            line_of(CALC, f"raise ParseError(t{'.value[0]' if lexer else ''})"),
            callback,
            {"self": "<calc.CalcParser object>", "t": token},
        ),
    ]
    keys = [f"{here}:{line_of(CALC, f'def {name}(')}" for name in (entry, callback)]
    failure = failing_test(
        test_path, "tests/test_calc.py::test_calc", 5, ("ParseError", token), frames, keys
    )
    return ranked_among_passing(tmp_path, failure, keys)


def test_the_rule_the_parser_was_inside_when_it_refused_the_token_comes_first(tmp_path):
    # f ( 2: the stack holds NAME '(' and the call rule goes on with ')' only
    found = ranked(
        tmp_path,
        "f(2)",
        "LexToken(NUMBER,'2',1,2)",
        "[$end, LexToken(NAME,'f',1,0), LexToken((,'(',1,1)]",
    )
    assert found[0] == "CalcParser.p_call"
    # '(' expr ')' would have taken the NUMBER: after it, the rules that did not run are listed
    assert found.index("CalcParser.p_term") > found.index("CalcParser.p_call")


def test_without_a_stack_the_rules_that_take_the_refused_token_come_first(tmp_path):
    assert ranked(tmp_path, "1++2", "LexToken(+,'+',1,2)")[0] == "CalcParser.p_sum"


def test_the_lexer_rules_of_the_refused_state_come_first_in_the_order_ply_tries_them(tmp_path):
    found = ranked(tmp_path, "\u00e4", "LexToken(error,'\u00e4',1,0)", lexer=True)
    assert found[:2] == ["CalcLexer.t_NUMBER", "CalcLexer.t_NAME"]
    assert found.index("CalcLexer.t_quoted_text") > found.index("CalcLexer.tokenize")


def test_a_text_the_test_did_not_write_names_no_rule(tmp_path):
    # our code made the text (a generator's output parsed back): the rules are not suspects
    found = ranked(
        tmp_path,
        "g(2)",
        "LexToken(NUMBER,'2',1,2)",
        "[$end, LexToken(NAME,'g',1,0), LexToken((,'(',1,1)]",
    )
    assert "CalcParser.p_call" not in found
    assert found[0] in ("CalcParser.parse", "CalcParser.p_error")
