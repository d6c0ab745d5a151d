"""The trace page says why: explain's tree for the failing step, the property
as written (with its comment), the consts; a collection that changed shows
its elements, not the whole value struck through; the markup comes from
Jinja2 templates with every value escaped."""
from __future__ import annotations

import re

import pytest

import modelcheck
from modelcheck.trace.html import render_html
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario

SPEC = """\
module bank
const LIMIT: 1..5 = 1
type Acct = model(2)
var bal: map[Acct, 0..5] = {a: 1 for a in Acct}
var seen: set[0..5] = {1}
var audit: 0..5 = 0
action Pay(a: Acct, b: Acct, k: 1..2) {
    require a != b and bal[a] >= k and bal[b] + k <= 5
    bal := {x: (if x == a then bal[x] - k else if x == b then bal[x] + k else bal[x]) for x in Acct}
    seen := (seen - {bal[a]}) | {bal[b] + k}
}
action Audit() {
    require audit < 5
    audit := audit + 1
}
# No account ever holds more than LIMIT </script><b>not bold</b>
invariant Capped: all(bal[a] <= LIMIT for a in Acct)
"""


@pytest.fixture(scope="module")
def model():
    return modelcheck.load_source(SPEC, "bank.mc")


@pytest.fixture(scope="module")
def page(model) -> str:
    text = "Audit\nPay(a=acct1, b=acct2, k=1)\nPay(a=acct2, b=acct1, k=2)\n"
    trace = run_scenario(model, parse_scenario(text, "s.scenario")).trace
    trace.kind, trace.property_name = "counterexample", "Capped"
    return render_html(trace, model)


def _section(page: str, ident: str) -> str:
    return page.split(f'<section id="{ident}"')[1].split("</section>")[0]


def test_the_why_panel_names_the_failing_step_and_explains_it(page):
    why = _section(page, "why")
    assert "Capped is false in state 2, reached by step 2: Pay(a=acct1, b=acct2, k=1)" in why
    tree = why.split('<ul class="why-tree">')[1]
    # the quantifier instance that fails, with the values that did it
    assert 'class="finding failed"' in tree
    assert "bal[a] &lt;= LIMIT" in tree and "a = acct2" in tree


def test_the_failing_step_is_marked_in_the_list_and_its_panel(page):
    assert re.search(r'<li class="step[^"]* violation" data-step="2"', page)
    panel = page.split('id="state-2"')[1].split('id="state-3"')[0]
    assert 'class="violation-mark"' in panel
    assert page.count('class="state violation"') == 1 and page.count('class="violation-mark"') == 1


def test_the_property_source_and_the_consts_are_shown_escaped(page):
    why = _section(page, "why")
    source = why.split('<pre class="property-source">')[1].split("</pre>")[0]
    assert "invariant Capped: all(bal[a] &lt;= LIMIT for a in Acct)" in source
    # the comment above the declaration comes with it, escaped like any value
    assert "&lt;/script&gt;&lt;b&gt;not bold&lt;/b&gt;" in source
    assert "<b>not bold" not in page
    assert "bank.mc:17" in why
    consts = why.split('<p class="consts">')[1].split("</p>")[0]
    assert re.sub(r"<[^>]+>", "", consts) == "Consts: LIMIT = 1"


def test_a_changed_collection_shows_its_elements_not_the_whole_value(page):
    step2 = page.split('id="state-2"')[1].split('id="state-3"')[0]
    row = step2.split('<tr data-var="seen"')[1].split("</tr>")[0]
    assert '<ul class="elem-changes">' in row and 'class="old"' in row   # the element removed
    assert '<pre class="old">' not in row                                 # no whole value struck
    added = re.findall(r'<li class="change added"><span class="sign">\+</span> <span class="new">(\d)</span>',
                       row)
    assert added == ["2"]
    # a number that changed is still old -> new
    audit = page.split('id="state-1"')[1].split('id="state-2"')[0].split('<tr data-var="audit"')[1]
    assert '<pre class="old">0</pre><pre class="new">1</pre>' in audit.split("</tr>")[0]


def test_a_page_without_its_spec_or_property_has_no_why(model):
    trace = run_scenario(model, parse_scenario("Audit\n", "s.scenario")).trace
    assert 'id="why"' not in render_html(trace, model)     # a scenario is about no property
    assert 'id="why"' not in render_html(trace)             # no spec at hand


def test_a_lasso_page_shows_its_property_and_the_fairness_panel():
    spec = ("module blink\nvar y: 0..1 = 0\naction Flip() { y := 1 - y }\naction Stay() { y := y }\n"
            "# y is 1 now and then\nliveness Often: always eventually y == 1\n")
    model = modelcheck.load_source(spec, "blink.mc")
    trace, = [p.trace for p in modelcheck.check(model, "reference").properties if p.name == "Often"]
    page = render_html(trace, model)
    why = _section(page, "why")
    assert "liveness Often: always eventually y == 1" in why and "# y is 1 now and then" in why
    assert 'class="why-tree"' not in why                    # the cycle is the why
    assert 'id="lasso"' in page and "No fairness is declared" in _section(page, "lasso")
