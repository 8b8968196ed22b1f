def word_counts(text):
    """How often each whitespace-separated word occurs."""
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 1) + 1
    return counts
