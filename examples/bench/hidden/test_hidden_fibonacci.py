from fib import fib


def test_later_numbers():
    assert fib(10) == 55
    assert fib(20) == 6765


def test_recurrence():
    assert all(fib(n) == fib(n - 1) + fib(n - 2) for n in range(2, 25))
