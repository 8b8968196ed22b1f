from grades import all_passed


def test_custom_threshold():
    assert all_passed([70, 80], threshold=70)
    assert not all_passed([69, 100], threshold=70)


def test_last_score_fails():
    assert not all_passed([90, 95, 10])


def test_no_scores_all_passed():
    assert all_passed([])
