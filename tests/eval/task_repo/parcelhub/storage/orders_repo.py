"""Orders persistence."""


class OrdersRepo:
    def __init__(self, uow):
        self.uow = uow

    def add(self, order):
        self.uow.stage("orders", order)
