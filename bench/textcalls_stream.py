"""Streaming a big tool call: the scanner against re-parsing the growing buffer.

A `write_file` call whose `content` argument is 35 KB, and one of 1 MB, arrives as a fenced
```tool_call block in 4-character deltas. The scanner reads each delta once. vLLM and SGLang
instead re-parse the whole call after every delta, with partial-json-parser (pure Python) or,
at best, jiter (Rust); that is timed here too, in the same run, on the call's JSON alone.
partial-json-parser needs minutes at 35 KB already and hours at 1 MB: it is measured at 35 KB
only (and at 4.5 KB with --quick); jiter is measured at 35 KB and 70 KB, which shows its growth.

Run: python bench/textcalls_stream.py [--quick]
Needs: pip install jiter partial-json-parser
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable

from toolwire.textcalls import ArgumentsDelta, CallCompleted, Scanner, parse_calls

try:
    import jiter
    import partial_json_parser
except ImportError as missing:
    sys.exit(f"this benchmark needs {missing.name}: pip install jiter partial-json-parser")

DELTA = 4
LINE = "print('hello world')\n"
TOOLS = ["write_file"]


def call_json(size: int) -> str:
    content = LINE * (size // len(LINE))
    return json.dumps({"name": "write_file", "arguments": {"path": "hello.py", "content": content}})


def reply(size: int) -> str:
    return f"I will write the file.\n```tool_call\n{call_json(size)}\n```"


def deltas(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


def timed(work: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def best(runs: int, *works: Callable[[], object]) -> list[float]:
    """The best time of each piece of work, the pieces interleaved run by run, so that the
    machine's load drifting during the benchmark affects them alike."""
    times = [[timed(work) for work in works] for _ in range(runs)]
    return [min(column) for column in zip(*times, strict=True)]


def floor(chunks: list[str]) -> list[ArgumentsDelta]:
    """Streaming at its cheapest: one call per delta that only wraps it in an event."""

    def feed(chunk: str) -> list[ArgumentsDelta]:
        return [ArgumentsDelta(index=0, delta=chunk)]

    events: list[ArgumentsDelta] = []
    for chunk in chunks:
        events += feed(chunk)
    return events


def stream_scanner(chunks: list[str]) -> str:
    scanner = Scanner(TOOLS)
    streamed: list[str] = []
    completed = ""
    for chunk in [*chunks, None]:
        for event in scanner.feed(chunk) if chunk is not None else scanner.close():
            if isinstance(event, ArgumentsDelta):
                streamed.append(event.delta)
            elif isinstance(event, CallCompleted):
                completed = event.raw_arguments
    assert "".join(streamed) == completed, "the deltas must add up to the arguments"
    return completed


def reparse(parse: Callable[[str], object], chunks: list[str]) -> object:
    buffer = ""
    parsed: object = None
    for chunk in chunks:
        buffer += chunk
        parsed = parse(buffer)
    return parsed


def jiter_parse(buffer: str) -> object:
    return jiter.from_json(buffer.encode(), partial_mode="trailing-strings")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--quick", action="store_true", help="partial-json-parser at 4.5 KB")
    quick = options.parse_args().quick
    small, large = 35_000, 1_000_000
    texts = {size: reply(size) for size in (small, large)}
    expected = json.loads(call_json(large))["arguments"]
    assert json.loads(stream_scanner(deltas(texts[large]))) == expected

    small_chunks, large_chunks = deltas(texts[small]), deltas(texts[large])
    ours_small, ours_large, once_small, once_large, floor_small = best(
        5,
        lambda: stream_scanner(small_chunks),
        lambda: stream_scanner(large_chunks),
        lambda: parse_calls(texts[small], TOOLS),
        lambda: parse_calls(texts[large], TOOLS),
        lambda: floor(small_chunks),
    )
    ours = {small: ours_small, large: ours_large}
    oneshot = {small: once_small, large: once_large}
    (json_once,) = best(5, lambda: json.loads(call_json(small)))
    jiter_small, jiter_double = best(
        1,
        lambda: reparse(jiter_parse, deltas(call_json(small))),
        lambda: reparse(jiter_parse, deltas(call_json(2 * small))),
    )
    jiter_time = {small: jiter_small, 2 * small: jiter_double}
    pjp_size = 4_500 if quick else small
    pjp_chunks = deltas(call_json(pjp_size))
    pjp_reply = deltas(reply(pjp_size))
    (pjp_time,) = best(1, lambda: reparse(partial_json_parser.loads, pjp_chunks))
    (ours_at_pjp,) = best(5, lambda: stream_scanner(pjp_reply))

    kb = {size: len(texts[size]) / 1000 for size in texts}
    print(f"write_file call streamed in {DELTA}-character deltas (times: best of runs, seconds)")
    print(
        f"  scanner, {kb[small]:.0f} KB reply, {len(deltas(texts[small]))} deltas: {ours[small]:.4f}"
    )
    print(
        f"  scanner, {kb[large]:.0f} KB reply, {len(deltas(texts[large]))} deltas: {ours[large]:.4f}"
    )
    print(f"  jiter re-parse, 35 KB: {jiter_time[small]:.4f}   70 KB: {jiter_time[2 * small]:.4f}")
    print(f"  partial-json-parser re-parse, {pjp_size / 1000:.1f} KB: {pjp_time:.3f}")
    print("ratios")
    size_ratio = len(texts[large]) / len(texts[small])
    print(
        f"  growth: 1 MB takes {ours[large] / ours[small]:.1f}x the 35 KB time for "
        f"{size_ratio:.1f}x the text (target: <= 35x, linear)"
    )
    print(
        f"  partial-json-parser / scanner at {pjp_size / 1000:.1f} KB: "
        f"{pjp_time / ours_at_pjp:.0f}x (target: >= 100x)"
    )
    print(f"  jiter / scanner at 35 KB: {jiter_time[small] / ours[small]:.1f}x (target: > 1x)")
    print(
        f"  jiter growth 35 KB -> 70 KB: {jiter_time[2 * small] / jiter_time[small]:.1f}x (quadratic: 4x)"
    )
    for size in (small, large):
        print(
            f"  streaming / one-shot parse_calls, {kb[size]:.0f} KB: "
            f"{ours[size] / oneshot[size]:.1f}x (target: <= 2x)"
        )
    count = len(small_chunks)
    print(
        f"  why: a fixed cost per delta, {(ours[small] - oneshot[small]) / count * 1e6:.1f} us; "
        f"a feed() that only wraps each delta in an event costs {floor_small / count * 1e6:.2f} "
        f"us, already {floor_small / oneshot[small]:.1f}x the one-shot parse by itself"
    )
    print(
        f"  one-shot parse_calls / json.loads of the same call: {oneshot[small] / json_once:.1f}x"
    )
    if quick:
        print("  (--quick: partial-json-parser measured at 4.5 KB, not 35 KB)")
    print("  partial-json-parser is not run at 1 MB: re-parsing grows quadratically (hours).")


if __name__ == "__main__":
    main()
