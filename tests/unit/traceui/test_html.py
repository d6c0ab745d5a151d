"""The trace page (modelcheck.trace.html): self-contained, one panel per step,
swimlanes with touched lanes and message arrows."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from modelcheck.errors import UsageError
from modelcheck.ir.values import FrozenDict
from modelcheck.trace.html import render_html
from modelcheck.trace.trace import Step, Trace


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Collect()
    parser.feed(page)
    return parser.tags


def test_page_is_self_contained(mini_model, mini_trace):
    page = render_html(mini_trace, mini_model)
    for tag, attrs in tags(page):
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            assert not re.match(r"(https?:)?//", value), (tag, key, value)
        assert tag != "link"
    assert "@import" not in page and "url(http" not in page
    assert page.count("<script") == 2        # the step data and the inline script


def test_one_state_panel_and_list_item_per_step(mini_model, mini_trace):
    page = render_html(mini_trace, mini_model)
    found = tags(page)
    panels = [a for t, a in found if t == "div" and "state" in (a.get("class") or "").split()]
    assert [p["data-step"] for p in panels] == [str(i) for i in range(6)]
    # a counterexample opens where its property fails: here the last state
    assert "hidden" not in panels[-1] and all("hidden" in p for p in panels[:-1])
    items = [a for t, a in found if t == "li" and (a.get("class") or "").startswith("step")]
    assert len(items) == 6 and "selected" in items[-1]["class"]
    assert '"open": 5' in page


def test_changes_are_marked_in_the_panel(mini_model, mini_trace):
    page = render_html(mini_trace, mini_model)
    step4 = page.split('id="state-4"')[1].split('id="state-5"')[0]
    assert 'class="change changed"' in step4
    assert "up[node1]" in step4
    assert '<td class="changed" data-lane="node1">' in step4
    assert '<tr data-var="confirmed">' in step4   # unchanged: not marked


def test_lanes_touches_and_message_arrows(mini_model, mini_trace):
    page = render_html(mini_trace, mini_model)
    found = tags(page)
    names = [a["data-lane"] for t, a in found if t == "text" and a.get("class") == "lane-name"]
    assert names == ["global", "node1", "node2"]      # Confirm touches no node
    arrows = [a for t, a in found if t in ("line", "path") and a.get("class", "").startswith("msg")]
    assert [(a["data-step"], a["data-from"], a["data-to"]) for a in arrows] == [
        ("1", "node1", "node2"), ("2", "node2", "node1")]
    assert all("in-flight" in a["class"] for a in arrows)   # never delivered
    touches = [(t, a) for t, a in found if a.get("class") == "touch"]
    assert [a["data-lane"] for _, a in touches] == ["node1", "node2", "global", "node1", "node2"]


def test_delivered_message_arrow_ends_at_the_receiving_step(mini_model):
    from modelcheck.trace.scenario import parse_scenario
    from modelcheck.trace.scenario_run import run_scenario
    text = "Write(n=node1, v=1)\nCrash(n=node1)\nDeliver(m=Msg(src=node1, dst=node2, val=1))\n"
    trace = run_scenario(mini_model, parse_scenario(text, "s.scenario")).trace
    page = render_html(trace, mini_model)
    arrow = re.search(r'<line class="msg" data-step="1"[^>]*y1="(\d+)"[^>]*y2="(\d+)"', page)
    assert arrow is not None
    y1, y2 = int(arrow.group(1)), int(arrow.group(2))
    assert y2 - y1 > 30        # drawn down to step 3's row


def test_by_picks_the_lanes_and_bad_names_fail(mini_model, mini_trace):
    page = render_html(mini_trace, mini_model, by="store")
    assert 'data-lane="node1"' in page
    with pytest.raises(UsageError):
        render_html(mini_trace, mini_model, by="Rack")


def test_text_is_escaped():
    trace = Trace("<b>m</b>", [Step(None, (), {"x": "<script>alert(1)</script>"}),
                               Step("A</script>", (), {"x": "y"})])
    page = render_html(trace)
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_spec_without_model_values_has_one_lane(die_hard_model, die_hard_trace):
    page = render_html(die_hard_trace, die_hard_model)
    assert page.count('class="lane-name"') == 1 and 'data-lane="state"' in page
    assert page.count('class="touch"') == 6


def test_untyped_trace_gets_inferred_lanes():
    s0 = {"leader": FrozenDict({"n1": False, "n2": False})}
    s1 = {"leader": FrozenDict({"n1": True, "n2": False})}
    page = render_html(Trace("", [Step(None, (), s0), Step(None, (), s1)]))
    assert 'data-lane="n1"' in page and 'data-lane="n2"' in page
    assert "step 1" in page
