"""The carrier adapter protocol."""

from typing import Protocol


class CarrierAdapter(Protocol):
    def quote(self, shipment): ...

    def book(self, shipment): ...

    def track(self, tracking_number): ...
