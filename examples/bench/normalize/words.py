def normalize(word):
    """Lower-case the word and strip surrounding blanks."""
    cleaned = word.strip().lower()
