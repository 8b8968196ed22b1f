"""Print total sales per city from data/sales.csv: python tools/report.py"""

import csv
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "sales.csv"


def parse_amount(text):
    """An amount like '12' or '7.50' as a number."""
    return int(text.strip())


def totals_by_city(rows):
    totals = {}
    for row in rows:
        totals[row["city"]] = totals.get(row["city"], 0) + parse_amount(row["amount"])
    return totals


def main():
    with DATA.open(newline="") as handle:
        totals = totals_by_city(csv.DictReader(handle))
    for city, total in sorted(totals.items()):
        print(f"{city}: {total:.2f}")


if __name__ == "__main__":
    main()
