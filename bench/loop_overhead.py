"""What the loop itself costs per step, against a plain-Python floor measured in the same run.

    python bench/loop_overhead.py

The model is the scripted model (no network, no tokens), so everything measured is toolwire:
streaming assembly, validation, execution, events, limits and (with the log on) SQLite writes.
Prints ratios; absolute times on a shared machine are only for orientation. With the `otel` extra
installed, it also measures what tracing adds per step (the SDK recording every span, handed to an
exporter that drops them), against tracing off in the same run.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from toolwire import Agent, Limits, ScriptedModel, Turn, tool
from toolwire._redact import redact
from toolwire.events import RunEvent, RunFinished, StepStarted
from toolwire.log import RunLog
from toolwire.models import ScriptedCall

if TYPE_CHECKING:
    from toolwire.otel import OpenTelemetry


@tool(side_effect="read_only")
async def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(side_effect="read_only")
def add_in_thread(a: int, b: int) -> int:
    """Add two integers (a sync function: runs in a worker thread)."""
    return a + b


@tool(side_effect="read_only")
async def sleepy(n: int) -> str:
    await anyio.sleep(0.05)
    return str(n)


def script(steps: int, calls: int, name: str = "add") -> list[Turn | str]:
    arguments = (lambda i: {"n": i}) if name == "sleepy" else (lambda i: {"a": i, "b": 2})
    turn = Turn(tool_calls=[ScriptedCall(name=name, arguments=arguments(i)) for i in range(calls)])
    return [turn] * (steps - 1) + ["done"]


def plain_loop(steps: int, calls: int) -> None:
    """The floor: the same conversation, with no validation, limits, events or streaming."""

    def model(messages: list[dict[str, Any]], step: list[int]) -> dict[str, Any]:
        step[0] += 1
        if step[0] >= steps:
            return {"role": "assistant", "content": "done", "tool_calls": []}
        tool_calls = [
            {"id": f"c{step[0]}_{i}", "name": "add", "arguments": json.dumps({"a": i, "b": 2})}
            for i in range(calls)
        ]
        return {"role": "assistant", "content": "", "tool_calls": tool_calls}

    def add_plain(a: int, b: int) -> int:
        return a + b

    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    step = [0]
    while True:
        reply = model(messages, step)
        messages.append(reply)
        if not reply["tool_calls"]:
            break
        for call in reply["tool_calls"]:
            result = add_plain(**json.loads(call["arguments"]))
            messages.append({"role": "tool", "id": call["id"], "content": str(result)})


async def per_step_ms(
    steps: int,
    calls: int,
    log: RunLog | None,
    name: str = "add",
    telemetry: OpenTelemetry | None = None,
) -> tuple[float, list[float]]:
    tools = [add, add_in_thread, sleepy]
    agent = Agent(
        ScriptedModel(script(steps, calls, name), chunk_size=64),
        tools,
        limits=Limits(max_steps=steps, loop_threshold=None),
        log=log,
        telemetry=telemetry,
    )
    marks: list[float] = []

    def on_event(event: RunEvent) -> None:
        if isinstance(event, StepStarted | RunFinished):
            marks.append(time.perf_counter())

    start = time.perf_counter()
    await agent.run("go", on_event=on_event)
    total = time.perf_counter() - start
    step_times = [(b - a) * 1000 for a, b in itertools.pairwise(marks)]
    return total * 1000 / steps, step_times


def best_of(repeats: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(repeats))


async def best_run(repeats: int, *args: Any) -> float:
    return min([(await per_step_ms(*args))[0] for _ in range(repeats)])


def sync_run_ms() -> float:
    agent = Agent(ScriptedModel(["done"] * 1000), [add])
    start = time.perf_counter()
    for _ in range(200):
        agent.run_sync("go")
    return (time.perf_counter() - start) * 1000 / 200


def timed_plain_loop(steps: int, calls: int) -> float:
    start = time.perf_counter()
    plain_loop(steps, calls)
    return time.perf_counter() - start


def import_time() -> float:
    code = "import time; t = time.perf_counter(); import toolwire; print(time.perf_counter() - t)"
    samples = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(5)
    ]
    return statistics.median(samples)


async def measure() -> None:
    with tempfile.TemporaryDirectory() as directory:
        log = RunLog(Path(directory) / "runs.db")
        print("S = steps per run, K = calls per step; ms per step (best of 5 runs)")
        print(
            f"{'S':>3} {'K':>2} {'floor':>8} {'log off':>9} {'ratio':>7} {'log on':>8} {'ratio':>7}"
        )
        for steps in (1, 10, 50):
            for calls in (1, 4):
                floor = best_of(5, functools.partial(timed_plain_loop, steps, calls)) * 1000 / steps
                off = await best_run(5, steps, calls, None)
                on = await best_run(5, steps, calls, log)
                print(
                    f"{steps:>3} {calls:>2} {floor:>8.4f} {off:>9.4f} {off / floor:>6.0f}x "
                    f"{on:>8.4f} {on / floor:>6.0f}x"
                )
        growth = []
        for _ in range(5):
            _, step_times = await per_step_ms(50, 1, None)
            late, early = statistics.median(step_times[40:50]), statistics.median(step_times[1:11])
            growth.append(late / early)
        # Medians within each window: one garbage collection pause in ten steps is noise here.
        print(
            "in-run growth, median step of 41-50 vs of 2-11 (S=50 K=1, median of 5 runs): "
            f"{statistics.median(growth):.2f}"
        )
        thread = await best_run(5, 10, 1, None, "add_in_thread")
        asynchronous = await best_run(5, 10, 1, None)
        print(
            f"sync tool in a worker thread vs async tool (S=10 K=1): {thread / asynchronous:.2f}x"
        )
        sleeping = await best_run(3, 2, 4, None, "sleepy") * 2
        print(
            f"4 read-only tools sleeping 50 ms in one step: {sleeping:.1f} ms for the step "
            f"({sleeping / 50:.2f}x one sleep; sequential would be 4x)"
        )
        log.close()


def tracings() -> dict[str, OpenTelemetry]:
    """Tracing with no SDK set up (the API's no-op tracer: the library's own cost), and through
    the SDK (every span recorded and batched) to an exporter that drops them. Empty without the
    `otel` extra."""
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )
        from opentelemetry.trace import NoOpTracerProvider
    except ImportError:
        return {}
    from toolwire.otel import OpenTelemetry

    class Dropping(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropping()))
    return {
        "API only, no SDK": OpenTelemetry(tracer_provider=NoOpTracerProvider()),
        "SDK, no-op exporter": OpenTelemetry(tracer_provider=provider),
    }


async def recorded_events(steps: int, calls: int) -> list[RunEvent]:
    events: list[RunEvent] = []
    agent = Agent(
        ScriptedModel(script(steps, calls), chunk_size=64),
        [add],
        limits=Limits(max_steps=steps, loop_threshold=None),
    )
    await agent.run("go", on_event=events.append)
    return events


def replay_us_per_step(telemetry: OpenTelemetry, events: list[RunEvent], steps: int) -> float:
    """The tracing handler's own time over one run's events, per step: exactly what tracing adds
    to the loop (it is called inline), without the loop's noise around it."""
    best = math.inf
    for _ in range(20):
        start = time.perf_counter()
        handler = telemetry.watch("bench", functools.partial(redact, known_secrets=()))
        for event in events:
            handler(event)
        best = min(best, time.perf_counter() - start)
    return best * 1e6 / steps


async def measure_tracing() -> None:
    kinds = tracings()
    if not kinds:
        print("tracing: not measured (pip install 'toolwire[otel]')")
        return
    steps = 50
    runs = {calls: await recorded_events(steps, calls) for calls in (1, 4)}
    print(f"tracing: its handler's time per step, over a {steps}-step run's events (best of 20)")
    for label, telemetry in kinds.items():
        costs = [
            f"K={k}: {replay_us_per_step(telemetry, e, steps):.1f} us" for k, e in runs.items()
        ]
        print(f"  {label:<20} {', '.join(costs)}")
    sdk = kinds["SDK, no-op exporter"]
    ratios = []
    for calls in (1, 4):
        # Off and on alternate, so that both see the same machine load.
        off, on = [], []
        for _ in range(9):
            off.append((await per_step_ms(20, calls, None))[0])
            on.append((await per_step_ms(20, calls, None, telemetry=sdk))[0])
        added = (min(on) - min(off)) * 1000
        ratios.append(f"K={calls}: {min(on) / min(off):.2f}x, +{added:.0f} us per step")
    # Above the handler's own time: its spans also cost the loop garbage collection and cache.
    print(f"  the loop with SDK tracing vs without (S=20, best of 9): {'; '.join(ratios)}")


def main() -> None:
    # All runs share one event loop, as in an async application; run_sync's own cost (a fresh
    # event loop per run) is printed separately.
    anyio.run(measure)
    anyio.run(measure_tracing)
    print(f"run_sync of a one-step run, event loop creation included: {sync_run_ms():.3f} ms")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print(f"import toolwire: {import_time() * 1000:.0f} ms (median of 5 fresh interpreters)")


if __name__ == "__main__":
    main()
