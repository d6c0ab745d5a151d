"""How the RabbitMQ drivers cut the Erlang distribution for a partition,
without a broker (fast tier).  Each side must present a cookie of its own
to the other: with one wrong cookie shared by both sides the two sides agree
on it, and the first reconnection heals the partition at once (pause_minority
was then never seen to pause).  And the cut is one evaluation on one node:
cut link by link over several rabbitmqctl calls, a node cut from the quorum
queue's leader but still linked to a peer held an election (QQ-prevote's
first walk)."""
from __future__ import annotations

import re

from modelcheck.conform.examples.rabbitmq_cluster import RabbitCluster


def _cut(tmp_path, side, other, running):
    cluster = RabbitCluster(3, tmp_path, base_port=40000, tag="t")
    said: list[tuple[int, str]] = []
    cluster.eval = lambda i, expr, **_: said.append((i, expr)) or "ok"
    cluster.partition(side, other, running)
    assert len(said) == 1, said
    host, expr = said[0]
    cookies = re.findall(r"erpc:call\('rabbit(\d)-t@localhost', erlang, set_cookie, "
                         r"\['rabbit(\d)-t@localhost', (\w+)\]", expr)
    cuts = re.findall(r"erpc:call\('rabbit(\d)-t@localhost', erlang, disconnect_node, "
                      r"\['rabbit(\d)-t@localhost'\]", expr)
    return host, expr, {(int(a), int(b)): c for a, b, c in cookies}, \
        {(int(a), int(b)) for a, b in cuts}


def test_each_side_uses_a_cookie_of_its_own(tmp_path):
    host, expr, cookies, cuts = _cut(tmp_path, {1}, {2, 3}, {1, 2, 3})
    assert host == 1
    assert set(cookies) == {(1, 2), (1, 3), (2, 1), (3, 1)}
    assert cookies[(1, 2)] != cookies[(2, 1)] and cookies[(1, 3)] != cookies[(3, 1)]
    assert cuts == {(1, 2), (1, 3)}
    # The cookies are all set before the first connection is closed.
    assert expr.rindex("set_cookie") < expr.index("disconnect_node")


def test_a_node_that_is_down_is_not_asked(tmp_path):
    host, _, cookies, cuts = _cut(tmp_path, {1, 3}, {2}, {1, 2})
    assert {a for a, _ in cookies} == {1, 2}
    assert cuts == {(1, 2)}


def test_the_heal_opens_the_links_in_one_step(tmp_path):
    """The side not named is restored first (no link can open while the
    named side still presents wrong cookies), then one node of the named
    side restores its whole side in one evaluation; pings come last."""
    cluster = RabbitCluster(3, tmp_path, base_port=40000, tag="t")
    said: list[tuple[int, str]] = []
    cluster.eval = lambda i, expr, **_: said.append((i, expr)) or "ok"
    cluster.heal({1, 2, 3}, side={1, 3})
    restores = [(i, e) for i, e in said if "set_cookie" in e]
    assert [i for i, _ in restores] == [2, 1]
    assert "erpc:call(A" in restores[1][1] and "'rabbit3-t@localhost'" in restores[1][1]
    assert all("ping" in e for _, e in said[2:]) and len(said) == 5
