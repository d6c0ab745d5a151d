"""Values reach the trace page escaped: no value, action name, lane key or
property name can end an element early or stop the page's own script
(``<!--<script>`` inside a <script> element swallows what follows it)."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from modelcheck.ir.values import FrozenDict
from modelcheck.trace.html import render_html
from modelcheck.trace.trace import Step, Trace

HOSTILE = ["</script>", "<!--<script>", "a\"b'c", "x & y", "<b>bold</b>", "\u2028"]


def _trace(bad: str) -> Trace:
    """An untyped trace (as another tool writes one) with ``bad`` as a lane
    key, a value, an action name, a parameter and the property name."""
    keys = ("n1", bad)
    states = [{"log": FrozenDict({k: 0 for k in keys}), "note": "start"},
              {"log": FrozenDict({"n1": 0, bad: 1}), "note": bad},
              {"log": FrozenDict({"n1": 2, bad: 1}), "note": bad + bad}]
    steps = [Step(None, (), states[0]), Step(bad, (("who", bad),), states[1]),
             Step("Write", (("who", "n1"),), states[2])]
    return Trace("m" + bad, steps, property_name=bad)


class _Page(HTMLParser):
    """The page as a browser's tokenizer sees it: the text of each script."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_strings_cannot_break_out_of_the_embedded_json(bad):
    page = render_html(_trace(bad), None, by="log")
    data = page.split('<script type="application/json" id="trace-data">')[1].split("</script>")[0]
    # The JSON holds no character that the HTML parser reads inside a script.
    assert not re.search(r"[<>&\u2028\u2029]", data)
    parsed = json.loads(data)
    assert bad in parsed["lanes"]                    # the lane key itself, intact
    parser = _Page()
    parser.feed(page)
    assert len(parser.scripts) == 2                  # the data and the page's own script
    assert parser.scripts[1].lstrip().startswith("// The trace page")


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_strings_never_appear_raw_in_the_html(bad):
    page = render_html(_trace(bad), None, by="log")
    plain = render_html(_trace("zzz"), None, by="log")
    if any(c in bad for c in "<>&\"'"):
        assert page.count(bad) == plain.count(bad)     # only where the page itself writes it
    body = page.split("<body>")[1]
    # Every tag in the body is one the page itself writes.
    written = set(re.findall(r"</?([a-zA-Z0-9-]+)", body))
    assert written <= {"header", "h1", "h2", "h3", "p", "kbd", "main", "section", "div", "ol", "li",
                       "span", "svg", "defs", "marker", "path", "rect", "text", "line", "g",
                       "title", "circle", "ul", "table", "thead", "tbody", "tr", "th", "td",
                       "pre", "script", "body", "html", "nav", "button"}
