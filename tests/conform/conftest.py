"""The broker tier: tests that start a real RabbitMQ cluster carry the
``broker`` marker (besides ``slow``), so that ``pytest -m broker`` runs
them alone (docs/conformance.md, "The broker tests")."""
from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "broker: starts a real RabbitMQ 3.10 cluster "
                                       "(tests/conform; slow tier)")
