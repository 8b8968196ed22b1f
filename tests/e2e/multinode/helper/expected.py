"""Name formatting."""


def initials(full_name):
    return "".join(word[0].upper() + "." for word in _words(full_name))


def _words(text):
    """The words of text, however many spaces separate them."""
    return [word for word in text.split(" ") if word]


def greeting(full_name):
    return f"Hello, {full_name}!"
