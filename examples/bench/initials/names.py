def initials(name):
    """Upper-case initials of each word: "ada lovelace" -> "AL"."""
    return "".join(part[1] for part in name.split()).upper()
