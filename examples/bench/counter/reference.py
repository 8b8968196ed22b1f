"""Reference fix. target: counters.py::make_counter.<locals>.increment"""

def increment():
    nonlocal count
    count += 1
    return count
