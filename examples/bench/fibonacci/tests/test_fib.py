from fib import fib

def test_first():
    assert [fib(i) for i in range(7)] == [0, 1, 1, 2, 3, 5, 8]
