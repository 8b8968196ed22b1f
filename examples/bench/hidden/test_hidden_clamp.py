from limits import clamp


def test_edges_are_inside():
    assert clamp(0, 0, 10) == 0
    assert clamp(10, 0, 10) == 10


def test_other_ranges():
    assert clamp(-50, -20, -10) == -20
    assert clamp(7, -20, -10) == -10
    assert clamp(2.5, 1, 3) == 2.5
