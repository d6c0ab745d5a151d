"""Example drivers: ``toy_queue`` (an in-process queue with a planted bug,
the template for a driver) and ``rabbitmq`` (a real 3-node cluster)."""

__all__: list[str] = []
