"""A FastMCP server over the personal-content store, on Streamable HTTP at 127.0.0.1.

The user is whoever the bearer token says: no tool takes a user argument, so a model cannot ask
for someone else's content. `save_run_summary` is the assistant's memory; the application hides it
from the model (see assistant.py).

    python server.py --db content.db --port 8765 --demo-data
"""

from __future__ import annotations

import argparse
from contextlib import closing
from typing import Annotated, Any, Literal

import content_db
from fastmcp import FastMCP
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.dependencies import get_access_token
from pydantic import Field


class DatabaseTokens(TokenVerifier):
    """A token is valid when its hash belongs to a user; the user id becomes the client id."""

    def __init__(self, db_path: str) -> None:
        super().__init__()
        self.db_path = db_path

    async def verify_token(self, token: str) -> AccessToken | None:
        with closing(content_db.connect(self.db_path)) as db:
            user = content_db.user_for_token(db, token)
        if user is None:
            return None
        return AccessToken(token=token, client_id=user, scopes=[])


def build_server(db_path: str) -> FastMCP:
    mcp = FastMCP(
        "personal-content",
        instructions="Search the signed-in user's own posts and photo captions.",
        auth=DatabaseTokens(db_path),
    )

    def current_user() -> str:
        token = get_access_token()
        if token is None:
            raise PermissionError("not signed in")
        return token.client_id

    @mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
    def search_my_content(
        query: Annotated[str, Field(description="words that must all appear")],
        media_type: Annotated[
            Literal["post", "photo", "any"], Field(description="which kind of item")
        ] = "any",
        limit: Annotated[int, Field(ge=1, le=50, description="at most this many")] = 10,
    ) -> list[dict[str, Any]]:
        """Search the signed-in user's own posts and photo captions, newest first."""
        with closing(content_db.connect(db_path)) as db:
            return content_db.search(db, current_user(), query, media_type, limit)

    @mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": False})
    def save_run_summary(summary: Annotated[str, Field(max_length=2000)]) -> str:
        """Remember what this conversation was about, for the signed-in user."""
        with closing(content_db.connect(db_path)) as db:
            number = content_db.save_summary(db, current_user(), summary)
        return f"saved summary {number}"

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="content.db")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--demo-data", action="store_true", help="add two demo users and items")
    args = parser.parse_args()
    if args.demo_data:
        content_db.create_demo_database(args.db)
    build_server(args.db).run(
        transport="http", host="127.0.0.1", port=args.port, show_banner=False, log_level="WARNING"
    )


if __name__ == "__main__":
    main()
