"""Crash tests: a real worker process SIGKILLed at each kill point, then restarted, on SQLite and
on a real PostgreSQL server. No mock of DBOS anywhere."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from toolwire import Approve
from toolwire.log import RunLog

from .harness import Ledgers, app_env, run_answering_approvals, run_through_crashes

STEPS = 3
EXPECTED = {
    "output": f"sent {STEPS} messages",
    "stop_reason": "answer",
    "messages": [
        "send the messages",
        "step 1. ",
        "",
        "step 2. ",
        "",
        "step 3. ",
        "",
        "sent 3 messages",
    ],
}


def check_result(result: dict[str, object], run_id: str, steps: int = STEPS) -> None:
    assert result["output"] == f"sent {steps} messages"
    assert result["stop_reason"] == "answer"
    calls = result["calls"]
    assert isinstance(calls, list)
    assert [call[0] for call in calls] == [f"call_{run_id}_{n}" for n in range(1, steps + 1)]


def check_log_shows_one_run(env: dict[str, str], run_id: str, steps: int = STEPS) -> None:
    log = RunLog(Path(env["TOOLWIRE_DATA_DIR"]) / "runs.db")
    try:
        [run] = log.runs()
        assert (run.id, run.stop_reason, run.steps) == (run_id, "answer", steps + 1)
        assert [call.call_id for call in log.calls(run_id)] == [
            f"call_{run_id}_{n}" for n in range(1, steps + 1)
        ]
    finally:
        log.close()


@pytest.mark.parametrize(
    ("kill", "rerequested", "rerun"),
    [
        ("stream:2", {2}, set()),  # mid-stream: nothing recorded yet, so asked again
        ("tool:2", set(), set()),  # response 2 recorded, its call not yet started
        ("effect:2", set(), {2}),  # after the effect, before its record: the call runs again
        ("between:3", set(), set()),  # between two steps
    ],
)
def test_a_killed_worker_resumes_without_repeating_what_was_recorded(
    tmp_path: Path,
    database_env: dict[str, str],
    kill: str,
    rerequested: set[int],
    rerun: set[int],
) -> None:
    env = app_env(tmp_path / "state", database_env, KILL=kill, DEDUPE="1")
    result, deaths = run_through_crashes(env, "run1")
    assert deaths == 1
    assert {k: result[k] for k in EXPECTED} == EXPECTED
    check_result(result, "run1")
    ledgers = Ledgers(tmp_path / "state")
    steps = range(1, STEPS + 2)
    assert ledgers.model_requests() == {n: 2 if n in rerequested else 1 for n in steps}
    assert ledgers.tool_runs() == {n: 2 if n in rerun else 1 for n in range(1, STEPS + 1)}
    # The key is the same on the run after the crash, so the deduping receiver sends once.
    assert all(len(keys) == 1 for keys in ledgers.keys().values())
    assert ledgers.effects() == dict.fromkeys(range(1, STEPS + 1), 1)
    check_log_shows_one_run(env, "run1")


def test_without_the_key_a_kill_after_the_effect_gives_it_twice(
    tmp_path: Path, database_env: dict[str, str]
) -> None:
    # The window every engine has: the effect happened, its record did not.
    env = app_env(tmp_path / "state", database_env, KILL="effect:2")
    result, _ = run_through_crashes(env, "run1")
    check_result(result, "run1")
    assert Ledgers(tmp_path / "state").effects() == {1: 1, 2: 2, 3: 1}


def test_many_kills_at_random_points_of_a_long_run(
    tmp_path: Path, database_env: dict[str, str]
) -> None:
    steps = 8
    points = [f"{kind}:{n}" for n in range(1, steps + 1) for kind in ("stream", "tool", "effect")]
    points += [f"between:{n}" for n in range(2, steps + 2)]
    kills = random.Random(25).sample(points, 6)
    env = app_env(
        tmp_path / "state", database_env, KILL=",".join(kills), DEDUPE="1", STEPS=str(steps)
    )
    result, deaths = run_through_crashes(env, "long")
    assert deaths == len(kills)
    check_result(result, "long", steps)
    ledgers = Ledgers(tmp_path / "state")
    streamed = {int(k.split(":")[1]) for k in kills if k.startswith("stream")}
    effected = {int(k.split(":")[1]) for k in kills if k.startswith("effect")}
    assert ledgers.model_requests() == {n: 1 + (n in streamed) for n in range(1, steps + 2)}
    assert ledgers.tool_runs() == {n: 1 + (n in effected) for n in range(1, steps + 1)}
    assert ledgers.effects() == dict.fromkeys(range(1, steps + 1), 1)
    check_log_shows_one_run(env, "long", steps)


def test_an_approval_is_answered_from_another_process_after_the_asking_worker_died(
    tmp_path: Path, database_env: dict[str, str]
) -> None:
    env = app_env(tmp_path / "state", database_env, KILL="waiting", APPROVE="1", DEDUPE="1")

    def approve(client: Any, run_id: str, call_id: str) -> None:
        client.approve(run_id, call_id, Approve(by="ann"))

    result, deaths, answered_alone = run_answering_approvals(env, "run1", approve)
    assert deaths == 1
    assert answered_alone == ["call_run1_1"]
    check_result(result, "run1")
    assert [call[2] for call in result["calls"]] == ["ann"] * STEPS
    ledgers = Ledgers(tmp_path / "state")
    assert ledgers.model_requests() == dict.fromkeys(range(1, STEPS + 2), 1)
    assert ledgers.effects() == dict.fromkeys(range(1, STEPS + 1), 1)
    check_log_shows_one_run(env, "run1")
