import unittest

from basket.prices import shipping, subtotal, to_pay
from basket.stock import load


class PricesTest(unittest.TestCase):
    def test_subtotal(self):
        self.assertEqual(subtotal([1, 2, 3]), 6)

    def test_free_shipping_from_50(self):
        self.assertEqual(shipping(50), 0)

    def test_to_pay_adds_shipping(self):
        self.assertEqual(to_pay([10, 20]), 35)


class StockTest(unittest.TestCase):
    def setUp(self):
        self.stock = load("pear 2\n\napple 3\n")

    def test_pears(self):
        self.assertEqual(self.stock["pear"], 2)


if __name__ == "__main__":
    unittest.main()
