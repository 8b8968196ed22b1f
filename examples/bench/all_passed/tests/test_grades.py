from grades import all_passed

def test_all():
    assert all_passed([50, 90])

def test_one_fails():
    assert not all_passed([40, 90])
