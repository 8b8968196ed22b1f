from tools.report import parse_amount, totals_by_city


def test_whole_amounts():
    assert parse_amount(" 12 ") == 12


def test_totals_by_city():
    rows = [{"city": "Lyon", "amount": "2"}, {"city": "Lyon", "amount": "3"}]
    assert totals_by_city(rows) == {"Lyon": 5}
