"""An official-SDK `MCPServer` whose tools ask the host for things mid-call: a form and a URL
(elicitation) and a completion from the host's model (sampling). Over the 2026-07-28 protocol
they arrive as `input_required` results; over older ones as server-to-client requests.

    asking_server.py            stdio
"""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, Elicit, Resolve, Sample
from mcp.types import (
    CallToolResult,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)
from pydantic import BaseModel, Field

mcp = MCPServer("asking", log_level="WARNING")


class Booking(BaseModel):
    date: str = Field(description="Which day")
    seats: int = Field(default=2, description="How many seats", ge=1, le=12)
    terrace: bool = Field(default=False, description="Outside?")


def ask_booking() -> Elicit[Booking]:
    return Elicit("Book a table: which day, and how many seats?", Booking)


@mcp.tool()
def book_table(
    restaurant: str, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]
) -> str:
    """Book a table; asks the user for the details."""
    if booking.action != "accept":
        return f"not booked at {restaurant}: the user chose {booking.action}"
    data = booking.data
    return f"booked {restaurant} on {data.date} for {data.seats} (terrace: {data.terrace})"


def ask_summary(text: str) -> Sample:
    message = SamplingMessage(
        role="user", content=TextContent(type="text", text=f"Summarise: {text}")
    )
    return Sample([message], max_tokens=50, system_prompt="Be brief.")


@mcp.tool()
def summarise(text: str, summary: Annotated[CreateMessageResult, Resolve(ask_summary)]) -> str:
    """Summarise a text with the host's model."""
    content = summary.content
    said = content.text if isinstance(content, TextContent) else "?"
    return f"summary by {summary.model}: {said}"


@mcp.tool()
def link_account(service: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Send the user to a page to link an account (URL-mode elicitation, by hand: an
    `input_required` result, then the retry carrying the answer and the state)."""
    answer = (ctx.input_responses or {}).get("link")
    if answer is None:
        url = ElicitRequestURLParams(
            message=f"Link your {service} account", url=f"https://accounts.example/link/{service}"
        )
        return InputRequiredResult(
            input_requests={"link": ElicitRequest(params=url)}, request_state=f"state:{service}"
        )
    assert isinstance(answer, ElicitResult)
    text = f"link {service}: {answer.action}, state {ctx.request_state}"
    return CallToolResult(content=[TextContent(type="text", text=text)])


if __name__ == "__main__":
    mcp.run()
