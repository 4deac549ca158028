"""Shipments persistence."""


class ShipmentsRepo:
    def __init__(self, uow):
        self.uow = uow
