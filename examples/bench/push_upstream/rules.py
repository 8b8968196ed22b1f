def needs_upstream(parts, output):
    """A `git push` that git refused because the branch has no upstream yet."""
    return "push" in parts and "set-upstream" in parts
