from counters import make_counter


def test_counters_are_independent():
    first, second = make_counter(), make_counter()
    assert first() == 1
    assert first() == 2
    assert second() == 1


def test_many_calls():
    tick = make_counter()
    assert [tick() for _ in range(10)][-1] == 10
