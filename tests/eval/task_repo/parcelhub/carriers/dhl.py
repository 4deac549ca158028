"""DHL Express adapter."""

SANDBOX_RATE = 8  # requests per second


class DhlAdapter:
    def quote(self, shipment):
        return None
