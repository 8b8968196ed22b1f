from rules import needs_upstream

REFUSED = "fatal: The current branch main has no upstream branch.\n    git push --set-upstream origin main"


def test_refused_push_is_matched():
    assert needs_upstream(["git", "push"], REFUSED)


def test_push_that_worked_is_not_matched():
    assert not needs_upstream(["git", "push"], "Everything up-to-date")


def test_other_commands_are_not_matched():
    assert not needs_upstream(["git", "status"], "")
    assert not needs_upstream(["git", "pull"], REFUSED)
