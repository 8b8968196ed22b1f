"""locate(): the failing check reads state an object keeps (issue 22, ranking, class A: a maker
read later). The method the test ran that computed that state and stored it on its object made
the value; the calls the line's value came through only carried it, so it comes first: an
attribute the check compares, stored from a parameter the method rebound
(python-socketio-469b7c0d's `connect`), or one a reader called on the line returns as stored
(`len(s)`, `return self._size`; pyrsistent-0be88dd2's evolver `remove`); of two makers, the
one the test's later act ran wrote it last (h2-9a7ff743's `next(buffer)`). A helper only the
constructor calls made how the object began, not a change (dulwich-6035a00d's
`_parse_oidf_chunk`)."""

from tests.helpers.locate import ranked_after_check

CLIENT = """\
class Client:
    def __init__(self):
        self.handlers = {}

    def on(self, event, handler, namespace="/"):
        self.handlers.setdefault(namespace, {})[event] = handler

    def connect(self, url, namespaces=None):
        if namespaces is None:
            namespaces = sorted(self.handlers)
        self.connection_url = url
        self.connection_namespaces = namespaces
"""
CLIENT_TEST = """\
from client import Client


def test_default_namespaces():
    c = Client()
    c.on("foo", print, namespace="/foo")
    c.on("any", print, namespace="*")
    c.connect("url")
    assert c.connection_namespaces == ["/foo"]
"""

COUNTER = """\
class Counter:
    def __init__(self):
        self._size = 0
        self.seen = []

    def add(self, item):
        self.seen.append(item)
        self._size += 2

    def __len__(self):
        return self._size


def count_all(items):
    counter = Counter()
    for item in items:
        counter.add(item)
    return counter
"""
COUNTER_TEST = """\
from counter import count_all


def test_count():
    counter = count_all([1])
    assert len(counter) == 1
"""

BUFFER = """\
class Buffer:
    def __init__(self):
        self._data = b""

    def add_data(self, data):
        self._data = self._data + data

    def __next__(self):
        frame = self._data[:2]
        self._data = self._data[2:]
        return frame
"""
BUFFER_TEST = """\
from buffer import Buffer


def test_consumed_frames_are_removed():
    buffer = Buffer()
    buffer.add_data(b"ab" * 2)
    next(buffer)
    assert buffer._data == b"ab"
"""

INDEX = """\
def write(entries):
    return [len(entries) + 1, *entries]


class Index:
    def __init__(self, data):
        self._parse_header(data)

    def _parse_header(self, data):
        self.count = data[0] + 0

    def __len__(self):
        return self.count
"""
INDEX_TEST = """\
from index import Index, write


def test_count():
    index = Index(write([1, 2, 3]))
    assert len(index) == 3
"""


def test_the_method_that_computed_the_compared_attribute_comes_first(tmp_path):
    # `on` ran in no passing test: its Ochiai is higher, but it stored no namespace list
    defs = ("def __init__", "def on(", "def connect(")
    found = ranked_after_check(tmp_path, "client", CLIENT, CLIENT_TEST, defs, ("def on(",))
    assert found[:2] == ["Client.connect", "Client.on"]


def test_the_maker_of_what_a_reader_on_the_line_returns_comes_first(tmp_path):
    defs = ("def __init__", "def add(", "def __len__", "def count_all(")
    assert ranked_after_check(tmp_path, "counter", COUNTER, COUNTER_TEST, defs)[0] == "Counter.add"


def test_of_two_makers_the_one_the_later_act_ran_wrote_last(tmp_path):
    defs = ("def __init__", "def add_data(", "def __next__")
    found = ranked_after_check(tmp_path, "buffer", BUFFER, BUFFER_TEST, defs)
    assert found[:2] == ["Buffer.__next__", "Buffer.add_data"]


def test_a_helper_only_the_constructor_calls_made_how_the_object_began(tmp_path):
    defs = ("def write(", "def __init__", "def _parse_header(", "def __len__")
    found = ranked_after_check(tmp_path, "index", INDEX, INDEX_TEST, defs)
    assert found[0] != "Index._parse_header"
    assert "Index._parse_header" in found
