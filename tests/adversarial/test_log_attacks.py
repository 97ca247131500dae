"""Attacks on what a run records: the run log, call ids, and the secrets errors may carry.

Each test is an attack that once got through (issue 27, items 6, 8, 9 and 10): a log that showed
the model's arguments beside the edited call that really ran, call ids a provider repeated that
cost records, a fresh log database that failed when several processes opened it at once, and
secrets that reached an error result, the log or the terminal.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.adapters.openai_wire import ChatDriver
from tests.adapters.script import Call, Say
from tests.adapters.wire import WireServer
from toolwire import (
    Agent,
    ApprovalRequest,
    Edit,
    Injected,
    Limits,
    ProviderError,
    RunResult,
    ScriptedModel,
    Turn,
    tool,
)
from toolwire import _redact as redaction
from toolwire.cli import main
from toolwire.events import RetryScheduled, RunEvent, ToolResultReady
from toolwire.log import MIGRATIONS, RunLog
from toolwire.models import ScriptedCall

KEY = "proxykey-7f3a9c2e1b5d44"
"""An API key with no recognisable shape: only the environment says it is one."""
RUN_ID = "replayed-run"


@tool
def send(amount: int, to: str) -> str:
    """Send money."""
    return f"sent {amount} to {to}"


@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def addition(a: int, b: int, id: str | None) -> ScriptedCall:
    return ScriptedCall(name="add", arguments={"a": a, "b": b}, id=id)


def payment(amount: int, to: str) -> ScriptedModel:
    return ScriptedModel(
        [Turn(tool_calls=[ScriptedCall(name="send", arguments={"amount": amount, "to": to})]), "ok"]
    )


def call_ids(result: RunResult) -> list[str]:
    return [call.id for message in result.messages for call in message.tool_calls]


def assert_each_call_answered_by_its_own_result(result: RunResult) -> None:
    for index, message in enumerate(result.messages):
        if message.role == "assistant" and message.tool_calls:
            answers = result.messages[index + 1].tool_results
            assert [r.call_id for r in answers] == [c.id for c in message.tool_calls]
            for call, answer in zip(message.tool_calls, answers, strict=True):
                assert answer.content == str(call.arguments["a"] + call.arguments["b"])


def everything_in(database: Path) -> str:
    """Every value in every table of a SQLite file, as one text."""
    db = sqlite3.connect(database)
    try:
        return "\n".join(db.iterdump())
    finally:
        db.close()


# --- 6: an edited call is recorded as edited ----------------------------------------------------


def test_an_edited_call_is_recorded_with_the_model_arguments_and_the_edit_that_ran(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def approver(request: ApprovalRequest) -> Edit:
        return Edit(arguments={"amount": 5, "to": "bob"}, by="alice")

    model = payment(1000, "mallory")
    log = RunLog()
    events: list[RunEvent] = []
    result = Agent(model, [send], approver=approver, log=log).run_sync(
        "pay", on_event=events.append
    )
    [record] = result.calls
    assert record.call.arguments == {"amount": 1000, "to": "mallory"}
    assert record.edited_arguments == {"amount": 5, "to": "bob"}
    assert record.result.content == "sent 5 to bob"
    [ready] = [e for e in events if isinstance(e, ToolResultReady)]
    assert ready.edited_arguments == {"amount": 5, "to": "bob"}
    [row] = log.calls(result.run_id)
    assert row.arguments == {"amount": 1000, "to": "mallory"}
    assert row.edited_arguments == {"amount": 5, "to": "bob"}
    assert (row.result, row.decided_by) == ("sent 5 to bob", "alice")
    log.close()

    assert main(["logs", result.run_id]) == 0
    shown = capsys.readouterr().out
    assert '→ send {"amount":1000,"to":"mallory"}  [decided by alice]' in shown
    assert 'edited to {"amount":5,"to":"bob"}' in shown
    assert main(["logs", result.run_id, "--json"]) == 0
    [call] = json.loads(capsys.readouterr().out)["calls"]
    assert call["edited_arguments"] == {"amount": 5, "to": "bob"}


def test_an_invalid_edit_is_recorded_and_nothing_runs() -> None:
    model = payment(1, "bob")
    log = RunLog()
    result = Agent(
        model, [send], approver=lambda request: Edit(arguments={"amount": "lots"}), log=log
    ).run_sync("pay")
    [record] = result.calls
    assert record.edited_arguments == {"amount": "lots"}
    assert record.result.is_error and "edited arguments are invalid" in record.result.content
    [row] = log.calls(result.run_id)
    assert row.arguments == {"amount": 1, "to": "bob"} and row.edited_arguments == {
        "amount": "lots"
    }


def test_a_log_written_before_edits_were_recorded_is_upgraded_keeping_its_rows(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("INSERT INTO runs (id, model, started_at) VALUES ('r1', 'm', 1.0)")
    db.execute(
        "INSERT INTO tool_calls VALUES ('r1', 'c1', 1, 'add', '{\"a\": 1}', '1', 0, 0, 2.0, 0.1, NULL)"
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    log = RunLog(path)
    [row] = log.calls("r1")
    assert (row.call_id, row.arguments, row.result, row.edited_arguments) == (
        "c1",
        {"a": 1},
        "1",
        None,
    )
    log.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


# --- 8: a call id the provider repeats still names one call ------------------------------------


def test_repeated_call_ids_each_get_their_own_result_and_log_row() -> None:
    model = ScriptedModel(
        [
            Turn(tool_calls=[addition(1, 2, "call_0"), addition(3, 4, "call_0")]),
            Turn(tool_calls=[addition(5, 6, "call_0")]),
            "done",
        ]
    )
    log = RunLog()
    result = Agent(model, [add], log=log).run_sync("add")
    ids = call_ids(result)
    assert len(set(ids)) == 3 and ids[0] == "call_0"
    assert_each_call_answered_by_its_own_result(result)
    assert [(r.call.arguments["a"], r.result.content) for r in result.calls] == [
        (1, "3"),
        (3, "7"),
        (5, "11"),
    ]
    rows = log.calls(result.run_id)
    assert sorted((row.call_id, row.result) for row in rows) == sorted(
        zip(ids, ["3", "7", "11"], strict=True)
    )


def test_ids_given_in_place_of_repeated_ones_are_the_same_when_a_run_is_replayed() -> None:
    def run() -> RunResult:
        model = ScriptedModel([Turn(tool_calls=[addition(1, 2, "c"), addition(3, 4, "c")]), "done"])
        return Agent(model, [add], log=log).run_sync("add", run_id=RUN_ID)

    log = RunLog()
    first, second = run(), run()
    assert call_ids(first) == call_ids(second)
    assert len(log.calls(RUN_ID)) == 2


def test_a_continued_conversation_never_reuses_an_id_from_its_history() -> None:
    def turn(request: Any) -> Turn | str:
        if request.messages[-1].role == "tool":
            return "done"
        return Turn(tool_calls=[addition(1, 1, "call_0")])

    agent = Agent(ScriptedModel(turn), [add])
    first = agent.run_sync("once")
    second = agent.run_sync("again", history=first.messages)
    ids = call_ids(second)
    assert len(ids) == len(set(ids)) == 2
    assert_each_call_answered_by_its_own_result(second)


pairs = st.tuples(st.integers(0, 9), st.integers(0, 9))
# Repeated ids, missing ones, and copies of the ids the loop itself generates for this run.
ids = st.sampled_from([None, "", "call_0", "call_1", *(f"call_{RUN_ID[:12]}_{n}" for n in (1, 2))])


@st.composite
def scripts(draw: st.DrawFn) -> list[Turn | str]:
    turns: list[Turn | str] = [
        Turn(tool_calls=[addition(a, b, draw(ids)) for a, b in draw(st.lists(pairs, max_size=4))])
        for _ in range(draw(st.integers(0, 3)))
    ]
    return [*turns, "done"]


@settings(max_examples=40, deadline=None)
@given(scripts())
def test_any_mix_of_repeated_and_missing_ids_keeps_every_call_apart(
    script: list[Turn | str],
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        log = RunLog(Path(directory) / "runs.db")
        # Identical calls across turns are what this checks, not what loop detection stops.
        no_guard = Limits(loop_threshold=None)
        result = Agent(ScriptedModel(script), [add], log=log, limits=no_guard).run_sync(
            "go", run_id=RUN_ID
        )
        ids = call_ids(result)
        assert len(ids) == len(set(ids)) == len(result.calls)
        assert_each_call_answered_by_its_own_result(result)
        assert len(log.calls(result.run_id)) == len(ids)
        log.close()


def test_an_openai_compatible_server_repeating_ids_gets_each_result_under_its_own_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    driver = ChatDriver()
    with WireServer() as server:
        server.script(
            driver.reply(
                Say(
                    calls=(
                        Call("add", {"a": 1, "b": 2}, "call_0"),
                        Call("add", {"a": 3, "b": 4}, "call_0"),
                    )
                )
            ),
            driver.reply(Say(calls=(Call("add", {"a": 5, "b": 6}, "call_0"),))),
            driver.reply(Say(text="done")),
        )
        agent = Agent(driver.model(server.url), [add])
        try:
            result = agent.run_sync("add")
        finally:
            agent.close()
        last = server.requests[-1].json
    assert result.output == "done"
    sent_calls = [
        (call["id"], json.loads(call["function"]["arguments"]))
        for message in last["messages"]
        for call in message.get("tool_calls") or ()
    ]
    sent_results = dict(driver.results(last))
    assert len(sent_calls) == len(sent_results) == 3
    for call_id, arguments in sent_calls:
        assert sent_results[call_id] == str(arguments["a"] + arguments["b"])


# --- 9: a new log database opened by several processes at once ---------------------------------

OPENER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from toolwire.events import RunStarted
    from toolwire.log import RunLog

    directory, start, rounds, me = Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    failures = 0
    for round in range(rounds):
        while time.time() < start + round * 0.15:
            pass
        try:
            log = RunLog(directory / f"{round}.db")
            log.record(me, RunStarted(run_id=me, model="m", prompt=None, started_at=0.0))
            log.close()
        except Exception as error:
            failures += 1
            print(f"round {round}: {error}", file=sys.stderr)
    sys.exit(1 if failures else 0)
""")


def test_processes_opening_a_new_log_at_once_all_succeed(tmp_path: Path) -> None:
    processes, rounds = 6, 12
    # Every process waits for the same instants, so each round's first opens really collide.
    start = time.time() + 1.5
    children = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, str(tmp_path), str(start), str(rounds), f"p{n}"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(processes)
    ]
    errors = [child.communicate(timeout=60)[1] for child in children]
    assert [child.returncode for child in children] == [0] * processes, "".join(errors)
    for round in range(rounds):
        db = sqlite3.connect(tmp_path / f"{round}.db")
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == processes
        db.close()


# --- 10: secrets reach no error result, log or terminal -----------------------------------------

SECRET_CHARS = "abc01"
"""Secrets come from these few characters (so they often overlap), the rest of a text never."""
secrets = st.text(alphabet=SECRET_CHARS, min_size=redaction.MIN_SECRET_CHARS, max_size=12)
others = st.text(alphabet=st.characters(blacklist_characters=SECRET_CHARS), max_size=12)


@settings(max_examples=300)
@given(st.lists(secrets, min_size=1, max_size=4), st.data())
def test_no_character_of_a_known_secret_survives_redaction(
    known: list[str], data: st.DataObject
) -> None:
    pieces = data.draw(st.lists(st.one_of(st.sampled_from(known), others), max_size=8))
    redacted = redaction.redact("".join(pieces), known)
    assert not set(redacted) & set(SECRET_CHARS), redacted


@dataclasses.dataclass
class Settings:
    name: str
    options: Any


class Credentials(pydantic.BaseModel):
    user: str
    password: pydantic.SecretStr


def nested(leaf: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`leaf` somewhere inside dicts, lists, tuples, sets and dataclasses."""
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.dictionaries(
                st.sampled_from(["password", "db", "x"]), inner, min_size=1, max_size=2
            ),
            st.lists(inner, min_size=1, max_size=2),
            st.tuples(inner, st.integers()),
            st.builds(Settings, name=st.just("prod"), options=inner),
        ),
        max_leaves=6,
    )


def hide(secret: str) -> st.SearchStrategy[Any]:
    """A structure holding `secret` exactly once, among other values."""
    return nested(
        st.one_of(
            st.just(secret),
            st.just(frozenset({secret, 7})),
            st.just(Credentials(user="svc", password=pydantic.SecretStr(secret))),
        )
    ).filter(lambda value: value != secret)


@settings(max_examples=100)
@given(st.data())
def test_every_string_nested_in_deps_counts_as_a_secret(data: st.DataObject) -> None:
    secret = data.draw(st.text(alphabet=SECRET_CHARS, min_size=8, max_size=16))
    deps = {"config": data.draw(hide(secret)), "client": object()}
    assert secret in redaction.dep_strings(deps)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_secret_nested_in_a_dep_reaches_neither_the_model_nor_the_log(
    data: st.DataObject,
) -> None:
    secret = data.draw(st.text(alphabet=SECRET_CHARS, min_size=8, max_size=16))
    config = data.draw(hide(secret))

    @tool(side_effect="read_only")
    def connect(config: Annotated[Any, Injected()]) -> str:
        # As a driver echoing its connection settings does.
        raise ConnectionError(f"login as {secret} failed; settings: {config!r}")

    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="connect")]), "ok"])
    with tempfile.TemporaryDirectory() as directory:
        log = RunLog(Path(directory) / "runs.db")
        result = Agent(model, [connect], log=log).run_sync("go", deps={"config": config})
        log.close()
        [record] = result.calls
        assert record.result.is_error and redaction.REDACTED in record.result.content
        assert secret not in record.result.content
        assert secret not in everything_in(Path(directory) / "runs.db")


def provider_echoing(key: str, *, retryable: bool = False) -> ProviderError:
    return ProviderError(
        f"openai: HTTP 401: invalid api key {key} (via proxy)", retryable=retryable
    )


def test_a_provider_error_echoing_a_secret_is_redacted_in_the_result_the_events_and_the_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    deps_secret = "tenant-token-99f0a1"
    model = ScriptedModel(
        [provider_echoing(KEY, retryable=True), provider_echoing(f"{KEY} {deps_secret}")]
    )
    log = RunLog()
    events: list[RunEvent] = []
    result = Agent(
        model, [add], log=log, limits=Limits(retry_base_delay=0.0, retry_max_delay=0.0)
    ).run_sync("go", deps={"tenant": {"auth": [deps_secret]}}, on_event=events.append)
    assert result.stop_reason == "error" and result.error is not None
    assert "invalid api key [REDACTED]" in result.error
    [retry] = [e for e in events if isinstance(e, RetryScheduled)]
    for text in (result.error, retry.error, everything_in(log.path)):
        assert KEY not in text and deps_secret not in text
    [run] = log.runs()
    assert run.error == result.error


def toolwire(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("as_json", [True, False])
def test_a_proxy_echoing_the_api_key_is_redacted_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    driver = ChatDriver()
    with WireServer() as server:
        server.script(driver.error(401, f"Incorrect API key provided: {KEY}"))
        done = toolwire("run", "hi", "--model", driver.spec(server.url), *(["--json"] * as_json))
    assert done.returncode == 1, done.stderr
    assert KEY not in done.stdout + done.stderr
    assert f"Incorrect API key provided: {redaction.REDACTED}" in done.stdout + done.stderr
    [run] = json.loads(toolwire("logs", "--json").stdout)
    assert KEY not in run["error"] and redaction.REDACTED in run["error"]


def test_walking_deps_is_bounded_and_survives_cycles() -> None:
    cycle: list[Any] = ["cycle-secret"]
    cycle.append(cycle)
    huge: Mapping[str, Any] = {"rows": [[i] for i in range(200_000)], "cycle": cycle}
    started = time.perf_counter()
    found = redaction.dep_strings(huge)
    assert time.perf_counter() - started < 1.0
    assert len(found) <= redaction.MAX_DEP_VALUES


def test_a_call_logged_with_arguments_nested_too_deep_reads_back_as_text(tmp_path: Path) -> None:
    deep = "[" * 10_000 + "]" * 10_000
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="pay", arguments=deep)]), "done"])
    log = RunLog(tmp_path / "runs.db")
    result = Agent(model, [], log=log).run_sync("go")
    [call] = log.calls(result.run_id)
    assert call.arguments == deep and call.is_error and not call.interrupted
