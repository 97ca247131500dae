"""Parts of the local adapter that need no model: call formats, stop strings, templates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire import UsageError
from toolwire.messages import Message, TextPart, ToolCall, ToolResult
from toolwire.models.local._engine import _StopMatcher
from toolwire.models.local._formats import HERMES, PROMPTED, call_key, detect_format
from toolwire.models.local._template import ChatTemplate, template_messages


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("", None),
        ("  \n", None),
        ("<tool", None),
        ("<tool_call>", True),
        ("{", True),
        ("[", None),
        ('[{"name"', True),
        ("`", None),
        ("```", None),
        ("```js", None),
        ("```json\n{", True),
        ("```tool_call\n{", True),
        ("```python", False),
        ("The answer", False),
        ("<b>", False),
    ],
)
def test_how_a_reply_opens(text: str, verdict: bool | None) -> None:
    assert HERMES.opens_call(text) is verdict


def test_call_text_and_detection() -> None:
    assert HERMES.call_text("f") == ('<tool_call>\n{"name": "f", "arguments": ', "}\n</tool_call>")
    assert PROMPTED.call_text("g")[0].startswith("```tool_call\n")
    assert detect_format("... <tool_call> ...") is HERMES
    assert detect_format("{{ messages }}").profile is None
    assert (
        PROMPTED.may_open_call("``")
        and PROMPTED.may_open_call(" {")
        and not PROMPTED.may_open_call("Hi")
    )


def feed_all(stops: list[str], chunks: list[str]) -> tuple[str, bool]:
    matcher = _StopMatcher(stops)
    out = []
    for chunk in chunks:
        text, hit = matcher.feed(chunk)
        out.append(text)
        if hit:
            return "".join(out), True
    return "".join(out) + matcher.flush(""), False


def test_stop_strings_cut_the_output_and_never_leak_a_prefix() -> None:
    assert feed_all(["STOP"], ["abc S", "TO", "P more"]) == ("abc ", True)
    assert feed_all(["STOP"], ["abc ST", "ART"]) == ("abc START", False)
    assert feed_all([], ["a", "b"]) == ("ab", False)


@given(
    st.lists(st.text(alphabet="abS", max_size=6), max_size=8), st.sampled_from(["S", "ab", "bSa"])
)
def test_stop_strings_any_chunking(chunks: list[str], stop: str) -> None:
    text = "".join(chunks)
    out, hit = feed_all([stop], chunks)
    if stop in text:
        assert hit and out == text[: text.index(stop)]
    else:
        assert not hit and out == text


def test_templates_run_sandboxed() -> None:
    with pytest.raises(UsageError, match="failed"):
        ChatTemplate("{{ ''.__class__.__mro__[1].__subclasses__() }}").render([])
    with pytest.raises(UsageError, match="refused the conversation: no system"):
        ChatTemplate("{{ raise_exception('no system') }}").render([])
    with pytest.raises(UsageError, match="does not compile"):
        ChatTemplate("{% for %}")


def test_tojson_keeps_text_and_order_as_hugging_face_does() -> None:
    template = ChatTemplate(
        "{% set value = {'z': 'é<', 'a': 1} %}{{ value | tojson }}|{{ value | tojson(indent=1) }}"
    )
    assert template.render([]) == '{"z": "é<", "a": 1}|{\n "z": "é<",\n "a": 1\n}'


def test_messages_for_templates() -> None:
    call = ToolCall(id="c1", name="f", arguments={"x": 1}, raw_arguments='{"x": 1}')
    messages = template_messages(
        [
            Message.system("s"),
            Message.user("u"),
            Message(role="assistant", parts=(TextPart(text="let me see"), call)),
            Message(role="tool", parts=(ToolResult(call_id="c1", name="f", content="2"),)),
        ]
    )
    assert messages[2] == {
        "role": "assistant",
        "content": "let me see",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}
        ],
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "2"}


def test_whole_calls_are_cut_where_the_grammar_ends_them() -> None:
    call = '<tool_call>\n{"name": "f", "arguments": {"x": 1, "y": "}"}}\n</tool_call>'
    again = '\n<tool_call>\n{"name": "f", "arguments": {"y": "}", "x": 1}}\n</tool_call>'
    text = call + again
    for cut in range(len(call)):
        assert HERMES.whole_call(text[:cut], 0, first=True) is None
    end, key = HERMES.whole_call(text, 0, first=True) or (0, "")
    assert end == len(call)
    assert HERMES.whole_call(text, end, first=False) == (len(text), key)  # same call, any order
    assert HERMES.whole_call(text, end, first=True) is None  # a later call needs its separator
    assert key != call_key("f", {"x": 2, "y": "}"})
