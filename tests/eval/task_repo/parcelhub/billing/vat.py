"""Value added tax per line."""

from decimal import ROUND_HALF_EVEN, Decimal


def line_tax(net: Decimal, rate: Decimal) -> Decimal:
    return (net * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
