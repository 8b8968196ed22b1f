from grading import letter

def test_a():
    assert letter(90) == "A"
    assert letter(99) == "A"

def test_b():
    assert letter(81) == "B"

def test_c():
    assert letter(80) == "C"
