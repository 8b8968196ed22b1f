from words import normalize

def test_normalize():
    assert normalize("  Hello ") == "hello"
