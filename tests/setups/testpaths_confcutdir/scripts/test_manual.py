"""Outside testpaths: a manual check pytest does not collect."""


def test_manual():
    assert False, "collected from outside testpaths"
