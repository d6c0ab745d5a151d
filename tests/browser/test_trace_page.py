"""The trace page in a real browser: headless Chromium, driven by selenium,
opens a generated page from disk, presses the arrow keys and checks what is
shown (the selected step, the highlighted changes, the lanes).

Needs the Debian packages ``chromium`` and ``chromium-driver`` (.ci/run
installs them) and selenium (the ``test`` extra); skips with the reason when
one is missing."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import modelcheck
from modelcheck.trace.html import render_html
from modelcheck.trace.scenario import parse_scenario
from modelcheck.trace.scenario_run import run_scenario

pytestmark = pytest.mark.browser

SPEC = """\
module lanes
type Node = model(2)
type Msg = record { src: Node, dst: Node }
var up: map[Node, bool] = {n: true for n in Node}
var got: map[Node, 0..2] = {n: 0 for n in Node}
var net: set[Msg] = {}
var ticks: 0..3 = 0
action Send(n: Node, m: Node) {
    require n != m
    net := net | {Msg(src=n, dst=m)}
}
action Receive(m: Msg) {
    require m in net
    got[m.dst] := got[m.dst] + 1
    net := net - {m}
}
action Crash(n: Node) {
    require up[n]
    up[n] := false
}
action Tick() {
    require ticks < 3
    ticks := ticks + 1
}
"""

STEPS = """\
Send(n=node1, m=node2)
Receive(m=Msg(src=node1, dst=node2))
Tick
Crash(n=node2)
"""

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


def _binary(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver",
                                    reason="selenium is not installed (pip install -e '.[test]')")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    browser = _binary("chromium", "chromium-browser")
    chromedriver = _binary("chromedriver")
    if browser is None or chromedriver is None:
        pytest.skip("headless Chromium is not installed "
                    "(apt-get install -y chromium chromium-driver)")
    profile = tempfile.mkdtemp(prefix="modelcheck-chromium-")
    options = Options()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument("--window-size=1400,900")
    options.binary_location = browser
    drv = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model = modelcheck.load_source(SPEC, "lanes.mc")
    trace = run_scenario(model, parse_scenario(STEPS, "steps.scenario")).trace
    path = tmp_path_factory.mktemp("page") / "trace.html"
    path.write_text(render_html(trace, model), encoding="utf-8")
    return path


def _open(driver, page: Path, fragment: str = "") -> None:
    # A fresh document, so the step from the previous test does not carry
    # over: from the same page, a get with another fragment would only fire
    # hashchange, which a busy machine handles after the test's first look.
    driver.get("about:blank")
    driver.get(page.as_uri() + fragment)
    driver.execute_script("window.focus();")


def _key(driver, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    for _ in range(times):
        ActionChains(driver).send_keys(key).perform()


def _shown(driver) -> list[str]:
    panels = driver.find_elements("css selector", "#states .state")
    return [p.get_attribute("data-step") for p in panels if p.is_displayed()]


def _selected(driver) -> str:
    return driver.find_element("css selector", "#steps li.selected").get_attribute("data-step")


def test_arrow_keys_move_between_steps(driver, page):
    from selenium.webdriver.common.keys import Keys
    _open(driver, page)
    assert _selected(driver) == "0" and _shown(driver) == ["0"]
    _key(driver, Keys.ARROW_DOWN, 2)
    assert _selected(driver) == "2" and _shown(driver) == ["2"]
    assert driver.find_element("tag name", "body").get_attribute("data-step") == "2"
    _key(driver, Keys.ARROW_UP)
    assert _selected(driver) == "1"
    _key(driver, Keys.ARROW_RIGHT, 2)
    assert _selected(driver) == "3"
    _key(driver, Keys.END)
    assert _selected(driver) == "4" and _shown(driver) == ["4"]
    _key(driver, Keys.ARROW_DOWN)          # past the end: stays on the last step
    assert _selected(driver) == "4"
    _key(driver, Keys.HOME)
    assert _selected(driver) == "0"
    _key(driver, Keys.ARROW_LEFT)          # before the start: stays on the first
    assert _selected(driver) == "0"
    assert driver.current_url.endswith("#step-0")


def test_changes_are_highlighted(driver, page):
    from selenium.webdriver.common.keys import Keys
    _open(driver, page)
    _key(driver, Keys.ARROW_DOWN, 2)       # Receive: got[node2] 0 -> 1, net loses the message
    panel = driver.find_element("id", "state-2")
    title = panel.find_element("css selector", "h2 .action").text
    assert title == "Receive(m=Msg(src=node1, dst=node2))"
    changes = [li.text for li in panel.find_elements("css selector", "ul.changes li")]
    assert changes == ["got[node2] 0 → 1", "net − Msg(src=node1, dst=node2)"]
    new = panel.find_element("css selector", "ul.changes li.changed .new")
    assert new.value_of_css_property("background-color") == "rgba(209, 250, 229, 1)"
    cell = panel.find_element("css selector", 'table.by-lane td.changed[data-lane="node2"]')
    assert cell.find_element("css selector", "pre.new").text == "1"
    assert cell.find_element("css selector", "pre.old").value_of_css_property(
        "text-decoration-line") == "line-through"
    unchanged = panel.find_element("css selector", 'table.by-lane td[data-lane="node1"]')
    assert "changed" not in (unchanged.get_attribute("class") or "")


def test_lanes_show_the_touched_nodes_and_messages(driver, page):
    from selenium.webdriver.common.keys import Keys
    _open(driver, page)
    names = [t.text for t in driver.find_elements("css selector", "#lanes-svg .lane-name")]
    assert names == ["global", "node1", "node2"]          # Tick touches no node
    _key(driver, Keys.ARROW_DOWN)
    marks = driver.find_elements("css selector", "#lanes-svg .step-mark.selected .touch")
    assert [m.get_attribute("data-lane") for m in marks] == ["node1", "node2"]
    arrow = driver.find_element("css selector", "#lanes-svg .msg.selected")
    assert (arrow.get_attribute("data-from"), arrow.get_attribute("data-to")) == ("node1", "node2")
    row = driver.find_element("css selector", "#lanes-svg .row-bg.selected")
    assert row.get_attribute("data-step") == "1"
    _key(driver, Keys.ARROW_DOWN, 2)
    marks = driver.find_elements("css selector", "#lanes-svg .step-mark.selected .touch")
    assert [m.get_attribute("data-lane") for m in marks] == ["global"]


def test_click_and_address_select_a_step(driver, page):
    _open(driver, page, "#step-3")
    assert _selected(driver) == "3" and _shown(driver) == ["3"]
    driver.find_element("id", "step-1").click()
    assert _selected(driver) == "1" and _shown(driver) == ["1"]


LASSO_SPEC = """\
module blink
var x: 0..2 = 0
var y: 0..1 = 0
action Up() { require x < 2
              x := x + 1 }
action Reset() { require x == 2
                 x := 0 }
action Flip() { y := 1 - y }
fair weak Up
fair weak Reset
liveness Often: always eventually y == 1
"""


@pytest.fixture(scope="module")
def lasso_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model = modelcheck.load_source(LASSO_SPEC, "blink.mc")
    result = modelcheck.check(model, "reference")
    trace, = [p.trace for p in result.properties if p.name == "Often"]
    assert trace is not None and trace.loop_back is not None
    path = tmp_path_factory.mktemp("lasso") / "lasso.html"
    path.write_text(render_html(trace, model), encoding="utf-8")
    return path


def test_a_lasso_page_draws_its_cycle_and_says_why_it_is_fair(driver, lasso_page):
    from selenium.webdriver.common.keys import Keys
    _open(driver, lasso_page)
    edge = driver.find_element("css selector", "#lanes-svg path.loop-back")
    assert edge.is_displayed()
    last = driver.find_elements("css selector", "#steps li.step")[-1].get_attribute("data-step")
    start = driver.find_element("css selector", "#steps li.loop-start").get_attribute("data-step")
    assert (edge.get_attribute("data-from"), edge.get_attribute("data-to")) == (last, start)
    # the return edge ends on the row of the state the cycle starts in
    row = driver.find_element("css selector", f'#lanes-svg .row-bg[data-step="{start}"]')
    box = edge.rect
    assert row.rect["y"] <= box["y"] <= row.rect["y"] + row.rect["height"]
    panel = driver.find_element("id", "lasso")
    assert panel.is_displayed() and f"back to state {start} by" in panel.text
    fair = [li.text for li in panel.find_elements("css selector", "ul.fairness li")]
    assert fair and all(" taken at " in t for t in fair)
    _key(driver, Keys.END)
    assert _selected(driver) == last


# ------------------------------------------------------------------ a RabbitMQ page, from elsewhere

REPO = Path(__file__).resolve().parents[2]
QQ_TRACE = REPO / "counterexamples" / "QQ-2-NoLostConfirmed.itf.json"
#: The picture in docs/traces.md; ``MODELCHECK_UPDATE_SCREENSHOTS=1 pytest
#: tests/browser`` takes it again (a test run leaves the repository alone).
SCREENSHOT = REPO / "docs" / "img" / "qq-trace.png"
UPDATE_SCREENSHOTS = "MODELCHECK_UPDATE_SCREENSHOTS"


@pytest.fixture(scope="module")
def qq_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quorum queue's QQ-2 counterexample page, made the way a user away
    from the repository makes it: the trace file is written into a temporary
    folder (as a run writes it outside its working folder: with the spec's
    absolute path and hash) and ``trace html`` runs from another folder
    beside it, with no --spec."""
    from click.testing import CliRunner

    from modelcheck.cli.main import cli
    from modelcheck.cli.trace_load import load_trace
    folder = tmp_path_factory.mktemp("qq")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        loaded = load_trace(str(QQ_TRACE.relative_to(REPO)))
        assert loaded.model is not None
        loaded.trace.save(folder / "qq.itf.json", loaded.model)
        elsewhere = folder / "elsewhere"
        elsewhere.mkdir()
        mp.chdir(elsewhere)
        result = CliRunner().invoke(cli, ["trace", "html", "../qq.itf.json", "-o", "qq.html"],
                                    catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "not found" not in result.output
    return elsewhere / "qq.html"


def _ends(driver, element) -> tuple[float, float, float, float]:
    """Where an arrow's line or path starts and ends (x, y each), as drawn."""
    return tuple(driver.execute_script(
        "var e = arguments[0], n = e.getTotalLength(), a = e.getPointAtLength(0),"
        " b = e.getPointAtLength(n); return [a.x, a.y, b.x, b.y];", element))


def test_a_rabbitmq_page_has_lanes_directed_arrows_and_says_why(driver, qq_page):
    from selenium.webdriver.common.keys import Keys
    _open(driver, qq_page)
    lanes = {t.get_attribute("data-lane"): float(t.get_attribute("x"))
             for t in driver.find_elements("css selector", "#lanes-svg .lane-name")}
    assert list(lanes) == ["Node 1", "Node 2", "Node 3"]
    arrows = driver.find_elements("css selector", "#lanes-svg .msg")
    assert arrows
    for arrow in arrows:
        assert arrow.get_attribute("marker-end") == "url(#arrowhead)"
        x1, _, x2, _ = _ends(driver, arrow)
        src, dst = lanes[arrow.get_attribute("data-from")], lanes[arrow.get_attribute("data-to")]
        # the head (the path's end) is at the receiver's lane, the tail at the sender's
        assert abs(x2 - dst) < 12 and abs(x1 - src) < 12, arrow.get_attribute("data-step")
    # NewerTerm(n=1, s=2): node 1 learns node 2's newer term, so the arrow goes 2 -> 1
    newer = driver.find_element("css selector", '#lanes-svg .msg[data-step="4"]')
    assert (newer.get_attribute("data-from"), newer.get_attribute("data-to")) == ("Node 2", "Node 1")
    why = driver.find_element("id", "why")
    assert why.is_displayed()
    assert "NoLostConfirmed is false in state 13" in why.text
    assert "invariant NoLostConfirmed" in why.find_element("css selector", "pre.property-source").text
    assert driver.find_elements("css selector", "#why ul.why-tree li.finding.failed")
    assert "N = 3" in why.find_element("css selector", "p.consts").text
    failing = driver.find_element("css selector", "#steps li.violation")
    assert failing.get_attribute("data-step") == "13"
    _key(driver, Keys.END)
    assert driver.find_element("id", "state-13").find_element("css selector", "p.violation-mark").is_displayed()
    shot = qq_page.with_suffix(".png")
    driver.set_window_size(1400, 1150)
    driver.execute_script("window.scrollTo(0, 0);")
    try:
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        driver.set_window_size(1400, 900)
    if os.environ.get(UPDATE_SCREENSHOTS):
        SCREENSHOT.write_bytes(shot.read_bytes())


# ------------------------------------------------------------------ first sight, and a phone

PHONE = (390, 844)
#: The phone pictures for docs/traces.md, taken again like SCREENSHOT.
PHONE_SCREENSHOT = REPO / "docs" / "img" / "qq-trace-phone.png"


def _phone(driver, on: bool) -> None:
    """A phone's screen: its width and height, a touch screen, mobile layout."""
    if on:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True})
    else:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def test_a_counterexample_opens_at_its_violating_step(driver, qq_page, lasso_page):
    _open(driver, qq_page)
    assert _selected(driver) == "13" and _shown(driver) == ["13"]
    assert driver.execute_script("return window.location.hash") == ""
    _open(driver, qq_page, "#step-2")               # an address still wins
    assert _selected(driver) == "2"
    _open(driver, lasso_page)                       # a lasso: where its cycle starts
    start = driver.find_element("css selector", "#steps li.loop-start").get_attribute("data-step")
    assert _selected(driver) == start


def test_on_a_phone_the_panels_stack_and_steps_answer_to_touch(driver, qq_page, tmp_path):
    _phone(driver, True)
    try:
        _open(driver, qq_page)
        width = driver.execute_script("return document.documentElement.clientWidth")
        assert width == PHONE[0]
        # nothing wider than the screen: the page itself never scrolls sideways
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        timeline = driver.find_element("id", "timeline").rect
        states = driver.find_element("id", "states").rect
        assert timeline["width"] > 0.9 * width and states["width"] > 0.9 * width
        assert states["y"] >= timeline["y"] + timeline["height"] - 1      # stacked, steps first
        steps = driver.find_element("id", "steps").rect
        assert steps["width"] > 150                                         # the step list has room
        # opened at the violation, its panel on the first screen
        assert _selected(driver) == "13"
        panel = driver.find_element("id", "state-13")
        assert panel.is_displayed() and panel.rect["y"] < PHONE[1]
        # the property's lines wrap instead of running off the screen
        source = driver.find_element("css selector", "pre.property-source")
        assert driver.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth + 1;",
                                     source)
        # previous / next: buttons a thumb can hit, at the bottom of the screen
        prev, nxt = driver.find_elements("css selector", ".stepper button")
        assert prev.rect["height"] >= 44 and nxt.is_enabled() is False
        bottom = prev.rect["y"] + prev.rect["height"]
        assert PHONE[1] - 70 <= bottom <= PHONE[1] + 1
        shot = tmp_path / "qq-phone.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        prev.click()
        assert _selected(driver) == "12" and _shown(driver) == ["12"]
        driver.find_element("id", "step-3").click()                          # a tap on a step
        assert _selected(driver) == "3" and _shown(driver) == ["3"]
        assert "step 3 of 13" in driver.find_element("css selector", ".stepper .at").text
        if os.environ.get(UPDATE_SCREENSHOTS):
            PHONE_SCREENSHOT.write_bytes(shot.read_bytes())
    finally:
        _phone(driver, False)


NET_SPEC = """\
module relay
type Node = model { lead, f1, f2 }
type Msg = variant {
    Replicate(src: Node, dst: Node, idx: 1..2),
    Ack(src: Node, dst: Node, idx: 1..2),
}
var net: bag[Msg, 4] = {}
var log: map[Node, 0..2] = {n: 0 for n in Node}
action Send(f: Node) {
    require f != lead and net == {}
    net := put(net, Replicate(src=lead, dst=f, idx=1))
}
action Deliver() {
    pick m in net
    match m {
        Replicate as r {
            log[r.dst] := r.idx
            net := put(take(net, m), Ack(src=r.dst, dst=r.src, idx=r.idx))
        }
        Ack { net := take(net, m) }
    }
}
"""


@pytest.mark.parametrize("size", [(1400, 900), PHONE], ids=["desktop", "phone"])
def test_message_arrows_carry_labels_and_a_tap_shows_the_message(driver, tmp_path, size):
    model = modelcheck.load_source(NET_SPEC, "relay.mc")
    trace = run_scenario(model, parse_scenario("Send(f=f2)\nDeliver\nDeliver\n", "s.scenario")).trace
    page = tmp_path / "relay.html"
    page.write_text(render_html(trace, model), encoding="utf-8")
    _phone(driver, size == PHONE)
    try:
        _open(driver, page)
        labels = driver.find_elements("css selector", "#lanes-svg .msg-label")
        assert [lb.text for lb in labels] == ["Replicate idx=1", "Ack idx=1"]
        boxes = [lb.rect for lb in labels]
        a, b = boxes
        assert a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"] or \
            a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
        labels[1].click()                                  # the Ack: sent at step 2
        assert _selected(driver) == "2"
        assert "Ack(src=f2, dst=lead, idx=1)" in driver.find_element("id", "state-2").text
        shot = tmp_path / f"relay-{size[0]}.png"
        assert driver.save_screenshot(str(shot))
    finally:
        _phone(driver, False)


# ------------------------------------------------------------------ five servers, a membership change

#: A quorum queue of five servers, four of them members; the leader adds the
#: fifth (a change written to its own log), then replicates to it.
MEMBERSHIP_CONSTS = {"N": "5", "x_quorum_initial_group_size": "4", "max_membership_changes": "1", "L": "2"}
MEMBERSHIP_STEPS = """\
Publish(m=1, l=1)
AppendEntries(l=1, f=2)
AppendEntries(l=1, f=3)
AdvanceCommit(l=1, k=1)
AddMember(l=1, n=5)
AppendEntries(l=1, f=5)
"""
#: Where the screenshots of the test below are kept to be looked at
#: (default: the test's temporary folder).
SHOT_DIR = "MODELCHECK_SCREENSHOT_DIR"


@pytest.fixture(scope="module")
def membership_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from modelcheck.cli.runner import load_model
    from modelcheck.trace.derived import with_lane_defs
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        model = load_model("specs/quorum_queue.mc", MEMBERSHIP_CONSTS)
    trace = run_scenario(model, parse_scenario(MEMBERSHIP_STEPS, "m.scenario")).trace
    path = tmp_path_factory.mktemp("membership") / "membership.html"
    path.write_text(render_html(with_lane_defs(trace, model), model), encoding="utf-8")
    return path


@pytest.mark.parametrize("size", [(1400, 900), PHONE], ids=["desktop", "phone"])
def test_five_servers_a_local_append_and_each_servers_configuration(driver, membership_page, tmp_path,
                                                                     size):
    _phone(driver, size == PHONE)
    try:
        _open(driver, membership_page, "#step-5")
        lanes = [t.get_attribute("data-lane")
                 for t in driver.find_elements("css selector", "#lanes-svg .lane-name")]
        assert lanes == [f"Node {k}" for k in range(1, 6)]
        # AddMember(l=1, n=5) appends to the leader's own log: a dot on its
        # lane, no arrow, and node 5's lane is not touched
        assert not driver.find_elements("css selector", '#lanes-svg .msg[data-step="5"]')
        touches = driver.find_elements("css selector", '#lanes-svg .step-mark[data-step="5"] .touch')
        assert [t.get_attribute("data-lane") for t in touches] == ["Node 1"]
        # the replication that follows is a message 1 -> 5
        sent = driver.find_element("css selector", '#lanes-svg .msg[data-step="6"]')
        assert (sent.get_attribute("data-from"), sent.get_attribute("data-to")) == ("Node 1", "Node 5")
        panel = driver.find_element("id", "state-5")
        row = panel.find_element("css selector", 'table.by-lane tr[data-var="config(n)"]')
        cells = row.find_elements("css selector", "td")
        assert len(cells) == 5
        assert "{1, 2, 3, 4, 5}" in cells[0].get_attribute("textContent")
        assert "changed" in cells[0].get_attribute("class")
        assert cells[1].get_attribute("textContent").strip() == "{1, 2, 3, 4}"
        # values keep their lines: some(1) and a log entry are one line each
        line = driver.execute_script(
            "return parseFloat(getComputedStyle(arguments[0]).lineHeight);",
            panel.find_element("css selector", "table.by-lane pre"))
        voted = panel.find_element("css selector", 'tr[data-var="voted_for"] td[data-lane="Node 2"] pre')
        assert voted.rect["height"] < 1.5 * line
        entry_lines = [ln for ln in driver.execute_script(
            "return arguments[0].textContent;",
            panel.find_element("css selector", 'tr[data-var="log"] td[data-lane="Node 2"] pre')).split("\n")]
        assert any("Entry(term=1, op=enqueue, msg=1, node=1)" in ln for ln in entry_lines)
        log2 = panel.find_element("css selector", 'tr[data-var="log"] td[data-lane="Node 2"] pre')
        assert log2.rect["height"] < 1.5 * line
        # the page never scrolls sideways: the table scrolls in its panel,
        # and the fifth column is there to scroll to
        width = driver.execute_script("return document.documentElement.clientWidth")
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        box = panel.find_element("css selector", ".by-lane-scroll")
        assert driver.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth;", box)
        driver.execute_script("arguments[0].scrollLeft = arguments[0].scrollWidth;", box)
        fifth = panel.find_element("css selector", 'table.by-lane thead th.lane:last-child')
        assert fifth.text == "Node 5"
        folder = Path(os.environ.get(SHOT_DIR) or tmp_path)
        folder.mkdir(parents=True, exist_ok=True)
        driver.execute_script("arguments[0].scrollLeft = 0; window.scrollTo(0, 0);", box)
        shot = folder / f"membership-{'phone' if size == PHONE else 'desktop'}.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        panel_shot = folder / f"membership-{'phone' if size == PHONE else 'desktop'}-state.png"
        assert panel.screenshot(str(panel_shot))
    finally:
        _phone(driver, False)
