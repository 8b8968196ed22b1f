from grading import letter


def test_every_band():
    assert [letter(s) for s in (100, 91, 90, 89, 81, 80, 0)] == ["A", "A", "A", "B", "B", "C", "C"]
