"""Speed of the local adapter, each figure a ratio or share measured within this one run.

    python bench/local_speed.py [--model local] [--rounds 7] [--tokens 128]

1. Generation speed: tokens/s of `LocalModel.stream` against llama-cpp-python's own
   `create_completion` on the same prompt and the same loaded model (greedy, so both write the
   same tokens), back to back in each round; the figure is the median of the rounds' ratios, since
   the shared machine's speed drifts more between rounds than within one. Prompt evaluation is
   excluded from both. Each `create_completion` runs in a thread of its own, as toolwire's
   generations do: llama.cpp's OpenMP threads wait on every barrier by sleeping instead of
   spinning once the process has more of them than cores, which happens as long as a second
   thread that has run the model lives on (the main thread never ends), and generation then
   slows to 0.63x on both sides (measured on 2 cores).
2. KV-cache reuse: a multi-step agent run with the built-in tools (the first step must call a
   tool); for each step, the share of its prompt served from the cache.
3. Time to the first tool call of `toolwire run PROMPT` in a fresh process (model already
   assembled in the cache), until the CLI prints the call.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time

import anyio

from toolwire import Agent, Limits
from toolwire.builtin import TOOLS
from toolwire.events import TextDelta, UsageReported
from toolwire.messages import Message
from toolwire.models import ModelRequest, ModelSettings, get_model
from toolwire.models.local import LocalModel

STORY = "Write a long story about a lighthouse keeper who collects maps."


def generation_rates(model: LocalModel, tokens: int) -> tuple[float, float]:
    """(toolwire tokens/s, llama-cpp-python tokens/s) for one round."""
    llm = model.engine.llm
    request = ModelRequest(
        messages=(Message.user(STORY),),
        settings=ModelSettings(max_output_tokens=tokens, temperature=0.0),
    )

    async def ours() -> float:
        stamps: list[float] = []
        produced = 0
        async for event in model.stream(request):
            if isinstance(event, TextDelta):
                stamps.append(time.perf_counter())
            elif isinstance(event, UsageReported):
                produced = event.usage.output_tokens
        return (produced - 1) / (stamps[-1] - stamps[0])

    llm.reset()
    our_rate = anyio.run(ours)
    prompt = model.engine.tokenize(model.render(request))
    stamps: list[float] = []

    def theirs() -> None:
        llm.reset()
        for _ in llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, stream=True):
            stamps.append(time.perf_counter())

    worker = threading.Thread(target=theirs)
    worker.start()
    worker.join()
    their_rate = (len(stamps) - 1) / (stamps[-1] - stamps[0])
    return our_rate, their_rate


def cache_shares(model: LocalModel) -> list[tuple[int, int, int]]:
    """(step, prompt tokens, of which from the cache) for each step of a real run."""
    steps: list[tuple[int, int, int]] = []

    def record(event: object) -> None:
        if isinstance(event, UsageReported):
            usage = event.usage
            steps.append((len(steps) + 1, usage.input_tokens, usage.cached_input_tokens))

    agent = Agent(model, TOOLS, tool_choice="required", limits=Limits(max_steps=4, timeout=600))
    model.engine.llm.reset()
    agent.run_sync("What time is it in Tokyo, and what is 17 * 23?", on_event=record)
    return steps


def first_call_seconds(spec: str, prompt: str) -> tuple[float, str]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "run", prompt, "--model", spec, "--no-log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        for line in process.stderr:
            if line.startswith("→ "):
                return time.perf_counter() - started, line.strip()
        return float("nan"), "(no tool call)"
    finally:
        process.kill()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--prompt", default="Convert 100 km to miles.")
    args = parser.parse_args()
    model = get_model(args.model)
    assert isinstance(model, LocalModel), "this benchmark measures local: models"
    started = time.perf_counter()
    model.load()
    print(
        f"{model.name}: loaded (verified, assembled if needed) in {time.perf_counter() - started:.1f} s"
    )

    rounds = [generation_rates(model, args.tokens) for _ in range(args.rounds)]
    ratios = sorted(ours / theirs for ours, theirs in rounds)
    ours = statistics.median(r[0] for r in rounds)
    theirs = statistics.median(r[1] for r in rounds)
    print(f"\n1. generation: toolwire {ours:.1f} tok/s, llama-cpp-python create_completion "
          f"{theirs:.1f} tok/s (medians); ratio {statistics.median(ratios):.3f}, the median of "
          f"{args.rounds} rounds' ratios ({', '.join(f'{r:.2f}' for r in ratios)})")  # fmt: skip

    print("\n2. KV cache reuse in a multi-step run (tool_choice required on step 1):")
    for step, prompt_tokens, cached in cache_shares(model):
        print(f"   step {step}: {cached}/{prompt_tokens} prompt tokens from the cache "
              f"({cached / prompt_tokens:.1%})")  # fmt: skip

    seconds, line = first_call_seconds(args.model, args.prompt)
    print(f"\n3. toolwire run {args.prompt!r}: first tool call after {seconds:.1f} s: {line}")


if __name__ == "__main__":
    main()
