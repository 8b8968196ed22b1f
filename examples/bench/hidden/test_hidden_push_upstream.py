from rules import needs_upstream


def test_push_with_arguments_is_matched():
    assert needs_upstream(["git", "push", "-q"], "hint: use git push --set-upstream origin dev")


def test_other_refusals_are_not_matched():
    assert not needs_upstream(["git", "push"], "error: failed to push some refs")
    assert not needs_upstream(["git", "fetch"], "set-upstream")
