"""Reference fix. target: names.py::initials"""

def initials(name):
    """Upper-case initials of each word: "ada lovelace" -> "AL"."""
    return "".join(part[0] for part in name.split()).upper()
