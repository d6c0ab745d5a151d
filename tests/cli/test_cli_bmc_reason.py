"""When the Z3 encoding declines a spec, ``check --engine bmc`` says why once,
naming the spec's own type (not the IR's representation of it), and each
property's line says only that it was declined."""
from __future__ import annotations

SPEC = """module big
type Msg = record { src: 0..99, dst: 0..99, seq: 0..99 }
var sent: set[Msg] = {}
var n: 0..3 = 0
action Send(a: 0..99) {
    require n < 3
    sent := sent | {Msg(src=a, dst=a, seq=n)}
    n := n + 1
}
invariant Small: len(sent) <= 3
invariant Count: n <= 3
sometimes Full: n == 3
"""


def test_a_declined_spec_gets_its_reason_once_in_the_spec_s_words(mc, tmp_path):
    spec = tmp_path / "big.mc"
    spec.write_text(SPEC)
    run = mc("check", str(spec), "--engine", "bmc", "--depth", "2", "--out", "OUT")
    assert run.exit_code == 3
    reason = ("the Z3 encoding does not support this spec: set[Msg] is over 1,000,000 "
              "elements and has no capacity: give it one (set[Msg, cap])")
    assert run.stdout.count(reason) == 1
    assert run.stdout.count("set[Msg]") == 1
    assert "unknown: the Z3 encoding does not support this spec\n" in run.stdout
    assert "Type(" not in run.stdout and len(run.stdout) < 1000
