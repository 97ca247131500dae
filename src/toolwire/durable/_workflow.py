"""The durable run: one DBOS workflow per run, whose id is the run id."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from dbos import DBOS

from ..agent import Agent
from ..errors import UsageError
from ..events import RunEvent
from ..run import RunResult
from ._engine import DBOSDurability

__all__ = ["WORKFLOW_NAME", "AgentRegistry", "run_workflow"]

WORKFLOW_NAME = "toolwire.run"
"""Compatibility data: runs recorded under this name resume only under it."""

EventHandler = Callable[[RunEvent], None]


class AgentRegistry:
    """The agents this process can run durable runs of, by name: a run records only the name,
    as an agent (a model connection, tools) cannot be stored. Every worker must know the names
    of the runs it may pick up."""

    def __init__(self) -> None:
        self.agents: dict[str, Agent] = {}
        self.resolve: Callable[[str], Agent | None] | None = None
        """Makes the agent of a name no agent was registered under, for each run anew."""
        self.listeners: dict[str, EventHandler] = {}
        """Event handlers of runs started in this process, so they stream live here."""

    def add(self, agents: Agent | Mapping[str, Agent]) -> None:
        self.agents.update({"default": agents} if isinstance(agents, Agent) else agents)

    @asynccontextmanager
    async def lease(self, name: str) -> AsyncIterator[Agent]:
        """The agent for one run; one made for the run is closed after it (its connections,
        its run log), one registered stays for the next."""
        agent = self.agents.get(name)
        if agent is not None:
            yield agent
            return
        made = None if self.resolve is None else self.resolve(name)
        if made is None:
            known = ", ".join(sorted(self.agents)) or "none"
            raise UsageError(f"no agent named {name!r} in this worker (agents: {known})")
        try:
            yield made
        finally:
            await made.aclose()
            close_log = getattr(made.log, "close", None)
            if close_log is not None:
                close_log()


REGISTRY = AgentRegistry()


@DBOS.workflow(name=WORKFLOW_NAME)
async def run_workflow(agent_name: str, prompt: str) -> RunResult:
    run_id = DBOS.workflow_id
    assert run_id is not None  # DBOS runs a workflow under its id
    durability = await DBOSDurability.start(run_id)
    async with REGISTRY.lease(agent_name) as agent:
        return await agent.run(
            prompt, run_id=run_id, durability=durability, on_event=REGISTRY.listeners.get(run_id)
        )
