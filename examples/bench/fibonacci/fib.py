def fib(n):
    """The n-th Fibonacci number (fib(0) = 0, fib(1) = 1)."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a - b
    return a
