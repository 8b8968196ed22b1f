"""The heal feature: the command, flaky triage, a shared cause, applying the fix, after it."""
