"""`modelcheck check --sweep`: every combination, one table or one JSON list."""
from __future__ import annotations

import json

LIMIT = "tests/cli/specs/limit.mc"
REF = ("--engine", "reference")


def test_sweep_prints_one_table_and_exits_with_the_worst_verdict(mc, golden):
    run = mc("check", LIMIT, *REF, "--sweep", "MAX=1,2,3", "--out", "OUT")
    assert run.exit_code == 1
    golden.check("cli/sweep.txt", run.transcript())
    # one trace per configuration and property, named after the configuration
    assert sorted(p.name for p in mc.out_dir.iterdir()) == [
        "limit-MAX=1-AtMax.itf.json", "limit-MAX=2-AtMax.itf.json",
        "limit-MAX=3-AtMax.itf.json", "limit-MAX=3-BelowThree.itf.json"]


def test_sweep_of_two_consts_runs_the_product_in_order(mc):
    run = mc("check", "specs/examples/two_phase.mc", *REF, "--sweep", "N=1,2",
             "--json", "--out", "OUT")
    assert run.exit_code == 0
    objs = json.loads(run.stdout)
    assert [o["consts"] for o in objs] == [{"N": 1}, {"N": 2}]
    assert [o["properties"]["Consistent"]["status"] for o in objs] == ["holds", "holds"]


def test_sweep_json_is_one_list_of_check_objects(mc):
    run = mc("check", LIMIT, *REF, "--sweep", "MAX=2,3", "--json", "--out", "OUT")
    assert run.exit_code == 1 and run.stderr == ""
    objs = json.loads(run.stdout)
    assert [(o["consts"]["MAX"], o["properties"]["BelowThree"]["status"],
             o["properties"]["BelowThree"]["steps"]) for o in objs] == \
        [(2, "holds", None), (3, "violated", 3)]
    assert objs[1]["properties"]["BelowThree"]["trace_file"] == \
        "<OUT>/limit-MAX=3-BelowThree.itf.json"


def test_a_bad_value_fails_before_any_search(mc):
    run = mc("check", LIMIT, *REF, "--sweep", "MAX=2,9", "--out", "OUT")
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr.startswith("error: sweep configuration MAX=9: -D MAX=9: 9 is outside 1..5")
    assert not mc.out_dir.exists()


def test_a_bad_value_in_json_mode_gives_a_list_with_the_error(mc):
    run = mc("check", LIMIT, *REF, "--sweep", "MAX=2,9", "--json")
    assert run.exit_code == 2
    (obj,) = json.loads(run.stdout)
    assert obj["error"]["message"].startswith("sweep configuration MAX=9: -D MAX=9")


def test_sweep_and_define_of_the_same_const_conflict(mc):
    run = mc("check", LIMIT, *REF, "--sweep", "MAX=2,3", "-D", "MAX=1")
    assert run.exit_code == 2
    assert run.stderr.startswith("error: MAX is given both with -D and with --sweep")


def test_sweep_with_a_bound_is_unknown(mc):
    run = mc("check", "specs/examples/two_phase.mc", *REF, "--sweep", "N=2,3",
             "--max-states", "30", "--out", "OUT")
    assert run.exit_code == 3
    assert "N=3: search incomplete: stopped at the state bound" in run.stdout
