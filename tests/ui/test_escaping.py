"""Whatever a prompt, model or tool wrote, the page's markup is the same as for plain text, and
the text comes back exactly: nothing written can add a tag or an attribute."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import Agent, ScriptedModel, Turn, tool
from toolwire.log import RunLog
from toolwire.models import ScriptedCall
from toolwire.ui import _data, _run_html


@tool(side_effect="read_only")
def echo(text: str) -> str:
    """Say it back."""
    return text


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[str, ...]]] = []
        self.results: list[str] = []
        self._in_result = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, tuple(sorted(name for name, _ in attrs))))
        self._in_result = tag == "pre" and ("class", "result") in attrs

    def handle_endtag(self, tag: str) -> None:
        self._in_result = False

    def handle_data(self, data: str) -> None:
        if self._in_result:
            self.results.append(data)


def _page(text: str, call_id: str) -> _Markup:
    log = RunLog(Path(":memory:"))
    call = ScriptedCall(name="echo", arguments={"text": text}, id=call_id)
    model = ScriptedModel([Turn(text=text, tool_calls=[call]), text], name="scripted")
    run_id = Agent(model, [echo], log=log).run_sync(text).run_id
    detail = _data.run_detail(log, run_id)
    log.close()
    assert detail is not None
    markup = _Markup()
    markup.feed(_run_html.run_page(detail))
    return markup


written = st.one_of(
    st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=60),
    st.text(st.sampled_from(list("<>&\"'`/= ;:-!?[]scriptimgonerror")), min_size=1, max_size=60),
)


@settings(max_examples=60, deadline=None)
@given(text=written, call_id=written)
def test_nothing_written_becomes_markup(text: str, call_id: str) -> None:
    plain = _page("plain", "call-1")
    page = _page(text, call_id)
    assert page.tags == plain.tags
    assert page.results == [text]
