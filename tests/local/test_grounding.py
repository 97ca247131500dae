"""Optional arguments a call makes up are left out of it (no model needed)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Literal

from hypothesis import example, given
from hypothesis import strategies as st

from toolwire import tool
from toolwire.builtin import calculate
from toolwire.builtin._units import known_unit
from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models.local._coverage import described_by
from toolwire.models.local._formats import BARE_JSON, HERMES, PROMPTED, call_key
from toolwire.models.local._grounding import Grounding, changes
from toolwire.models.local._reply import _Call, _WholeCalls
from toolwire.models.local._schema_reading import identified
from toolwire.tools import ToolDefinition

SCHEDULE = ToolDefinition(
    name="team_schedule",
    description="The next games of a team.",
    parameters={
        "type": "object",
        "properties": {
            "team": {"type": "string"},
            "games": {"type": "integer"},
            "league": {"type": "string"},
            "location": {"type": "string", "description": "A city, default all."},
            "venue": {"type": "string", "enum": ["home", "away"]},
            "detailed": {
                "type": "boolean",
                "description": "Add the kick-off times and TV channels",
            },
            "include_cups": {"type": "boolean", "default": True},
            "opponents": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["team"],
    },
)
ASKED = [Message.user("Give me the schedule of Manchester United for the next 6 games.")]


def test_a_made_up_option_flag_or_list_is_left_out_and_free_text_stays() -> None:
    grounding = Grounding.of(ASKED, [SCHEDULE])
    made = {
        "team": "Chelsea",  # required: the model's to get wrong, not ours to drop
        "games": 6,
        "location": "London",  # free text: a guess or knowledge, the schema cannot tell
        "venue": "home",  # an option nobody mentioned
        "detailed": True,  # a flag nobody asked to turn on
        "include_cups": True,  # a flag left as it is by default
        "opponents": ["Arsenal"],  # a list holding a made-up string
    }
    assert grounding.arguments("team_schedule", made) == {
        key: value for key, value in made.items() if key not in {"venue", "detailed", "opponents"}
    }
    at_home = Grounding.of([Message.user("Manchester United's next home games")], [SCHEDULE])
    assert at_home.arguments("team_schedule", {"venue": "home"}) == {"venue": "home"}


def test_a_flag_turned_from_its_default_stays_when_the_conversation_asks_for_it() -> None:
    def flags(request: str) -> dict[str, Any]:
        made = {"team": "Chelsea", "detailed": True, "include_cups": False}
        grounding = Grounding.of([Message.user(request)], [SCHEDULE])
        return {k: v for k, v in grounding.arguments("team_schedule", made).items() if k != "team"}

    assert flags("Chelsea's next games") == {}
    # A word of its name, or two of what its description says it does.
    assert flags("Chelsea's next games in detail, without the cups") == {
        "detailed": True, "include_cups": False,
    }  # fmt: skip
    assert flags("When do Chelsea's next games kick off, and on which channels?") == {
        "detailed": True
    }
    assert flags("Chelsea's next games on TV") == {}


def test_a_value_the_conversation_gave_stays_however_it_is_written() -> None:
    conversation = [
        Message.system("The user follows English football; home city: Manchester."),
        *ASKED,
        Message(
            role="assistant",
            parts=(ToolCall(id="c1", name="leagues", raw_arguments='{"country": "England"}'),),
        ),
        Message(
            role="tool",
            parts=(ToolResult(call_id="c1", name="leagues", content="Premier League, FA Cup"),),
        ),
    ]
    grounding = Grounding.of(conversation, [SCHEDULE])
    given = ["premier league", "Premier-League", "MANCHESTER", "England", "fa cup", "FA"]
    # Or a word of four characters or more of it: the model's knowledge put to use.
    given += ["Europe/Manchester", "Premier League 2023/24", "Manchester, England"]
    for value in given:
        assert grounding.gave(value)
    # Whole words only, and a short word on its own does not tell.
    for value in ("Manc", "Leag", "Old Trafford", "on TV", "all"):
        assert not grounding.gave(value)
    # Free text is never dropped from a first call: knowledge and guesses look alike.
    assert grounding.arguments("team_schedule", {"league": "Old Trafford"}) == {
        "league": "Old Trafford"
    }
    # A tool it does not know, or a tool without properties, keeps every argument.
    assert grounding.arguments("other", {"location": "London"}) == {"location": "London"}
    bare = ToolDefinition(name="bare", description="", parameters={"type": "object"})
    assert Grounding.of(ASKED, [bare]).arguments("bare", {"a": "b"}) == {"a": "b"}


LAST_MATCH = ToolDefinition(  # BFCL parallel_multiple_149
    name="soccer_get_last_match",
    description="Retrieve the details of the last match played by a specified soccer club.",
    parameters={
        "type": "object",
        "properties": {
            "team_name": {"type": "string"},
            "include_stats": {
                "type": "boolean",
                "description": "If true, include match statistics like possession, shots on "
                "target etc. Default is false.",
            },
        },
        "required": ["team_name"],
    },
)
INVENTION = ToolDefinition(  # BFCL parallel_multiple_152: the flag is required
    name="get_invention",
    description="Retrieve the inventor of an invention.",
    parameters={
        "type": "object",
        "properties": {
            "invention_name": {"type": "string"},
            "want_year": {
                "type": "boolean",
                "default": False,
                "description": "Return the year of invention if set to true.",
            },
        },
        "required": ["invention_name", "want_year"],
    },
)


def test_a_flag_the_request_asks_for_a_call_is_turned_on() -> None:
    def stats(request: str, *calls: dict[str, Any]) -> list[Any]:
        grounding = Grounding.of([Message.user(request)], [LAST_MATCH, INVENTION])
        earlier: list[tuple[str, dict[str, Any]]] = []
        for arguments in calls:
            earlier.append(
                ("soccer_get_last_match", grounding.arguments(LAST_MATCH.name, arguments, earlier))
            )
        return [arguments.get("include_stats") for _, arguments in earlier]

    united = {"team_name": "Manchester United"}
    asked = (
        "Book a room in Paris for 5 nights. Fetch the last match played by 'Manchester United'. "
        "Also, include the match statistics. Lastly, my BMI: I weigh 75 kg and I am 1.8 m tall."
    )
    assert stats(asked, united) == [True]
    assert stats(asked, {**united, "include_stats": False}) == [True]
    # Nobody asked; asked in the negative; asked nearer another value of the request.
    assert stats("The last match of 'Manchester United'.", united) == [None]
    assert stats("The last match of 'Manchester United', without its statistics.", united) == [None]
    assert stats(asked, {"team_name": "Chelsea"}) == [None]
    nearer_chelsea = "The last match of 'Manchester United', and of 'Chelsea' with its stats."
    assert stats(nearer_chelsea, united, {"team_name": "Chelsea"}) == [None, True]
    # A call made with it on asks for something else than one made with it off.
    both = "The last match of 'Arsenal' with the match statistics, then without them."
    arsenal = {"team_name": "Arsenal"}
    assert stats(both, {**arsenal, "include_stats": True}, arsenal) == [True, None]

    invention = Grounding.of(
        [Message.user("Who invented the 'Telephone', and in which year?")], [INVENTION]
    )
    telephone = {"invention_name": "Telephone", "want_year": False}
    assert invention.arguments(INVENTION.name, telephone) == {**telephone, "want_year": True}


@given(
    st.dictionaries(
        st.sampled_from(["team", "games", "league", "location", "venue", "opponents", "extra"]),
        st.one_of(
            st.text(max_size=12),
            st.integers(),
            st.booleans(),
            st.none(),
            st.lists(st.text(max_size=12) | st.integers(), max_size=3),
        ),
    ),
    st.text(max_size=60),
)
def test_grounding_only_leaves_arguments_out_or_turns_on_a_flag_asked_for(
    arguments: dict[str, Any], said: str
) -> None:
    grounding = Grounding.of([Message.user(said)], [SCHEDULE])
    kept = grounding.arguments("team_schedule", arguments)
    # Or turns on the one flag off by default, where the request asks for it.
    if kept.get("detailed") is True and "detailed" not in arguments:
        del kept["detailed"]
        flag = grounding.guessable["team_schedule"].flags["detailed"]
        assert grounding.asks_here("detailed", flag, kept)
    assert kept.items() <= arguments.items()
    for name in arguments.keys() - kept.keys():
        value = arguments[name]
        if name == "games":  # a number the request does not hold, and no number in words
            assert isinstance(value, int) and grounding.numbers is not None
            assert abs(value) not in grounding.numbers
        elif name == "opponents":  # holding a string never given or a number never written
            held = value if isinstance(value, list) else [value]
            assert any(
                not grounding.gave(item)
                if isinstance(item, str)
                else grounding.numbers is not None and abs(item) not in grounding.numbers
                for item in held
                if not isinstance(item, bool) and item is not None
            )
        else:
            assert name in {"league", "location", "venue"} and isinstance(value, str)
    # A value that is the whole request (in words, as models copy it) is always kept.
    if said.strip() and any(c.isalnum() for c in said):
        assert grounding.arguments("team_schedule", {"location": said}) == {"location": said}


def test_a_made_up_optional_number_is_left_out_unless_numbers_may_be_in_words() -> None:
    grounding = Grounding.of(ASKED, [SCHEDULE])  # "for the next 6 games"
    assert grounding.arguments("team_schedule", {"team": "Chelsea", "games": 10}) == {
        "team": "Chelsea"
    }
    for games in (6, 6.0, -6, 0.06):  # held as written, negated, or as a percentage's fraction
        assert grounding.arguments("team_schedule", {"games": games}) == {"games": games}
    in_words = Grounding.of([Message.user("Manchester United's next six games")], [SCHEDULE])
    assert in_words.arguments("team_schedule", {"games": 6}) == {"games": 6}
    assert in_words.arguments("team_schedule", {"games": 10}) == {"games": 10}
    # An ordinal marking a step of the request stands for no number; one in a sentence may.
    steps = Grounding.of([Message.user("First, the next 6 games. Second, the table.")], [SCHEDULE])
    assert steps.arguments("team_schedule", {"games": 10}) == {}
    ordinal = Grounding.of([Message.user("The first 6 games, and the second ones.")], [SCHEDULE])
    assert ordinal.arguments("team_schedule", {"games": 10}) == {"games": 10}
    # Digits anywhere in the conversation count, thousands separators and all.
    results = [*ASKED, Message.user("Their stadium holds 74,310.")]
    assert Grounding.of(results, [SCHEDULE]).arguments("team_schedule", {"games": 74310}) == {
        "games": 74310
    }
    # A date's digits are a date: "Today is 2026-03-10" writes no 10 games.
    dated = [Message.system("Today is 2026-03-10."), Message.user("Chelsea's next games")]
    assert Grounding.of(dated, [SCHEDULE]).arguments("team_schedule", {"games": 10}) == {}


LOAN = ToolDefinition(
    name="loan_payment",
    description="The monthly payment of a loan.",
    parameters={
        "type": "object",
        "properties": {
            "principal": {"type": "number"},
            "rate": {"type": "number", "description": "The annual interest rate, as a decimal."},
            "margin": {"type": "number", "minimum": 0, "maximum": 1},
            "fee": {"type": "number", "description": "The fee, in percent of the principal."},
            "tax": {"type": "number", "description": "The tax rate."},
            "years": {"type": "integer"},
        },
        "required": ["principal", "rate", "fee", "years"],
    },
)


def test_a_percentage_becomes_the_fraction_only_where_the_schema_declares_one() -> None:
    grounding = Grounding.of(
        [Message.user("Payment on $5000 at 5% for 10 years, a 2 percent fee, 3% margin, 7% tax?")],
        [LOAN],
    )
    passed = {"principal": 5000, "rate": 5, "fee": 2, "margin": 3, "tax": 7, "years": 10}
    # "as a decimal" and a maximum of 1 declare fractions; "in percent" and a schema that
    # says nothing leave the value as the model wrote it.
    assert grounding.arguments("loan_payment", passed) == {**passed, "rate": 0.05, "margin": 0.03}
    # Already a fraction, or a number that is not one of the percentages, stays as it is.
    for rate in (0.05, 6, 0.5):
        assert grounding.arguments("loan_payment", {"rate": rate}) == {"rate": rate}
    # A percentage also written plain is still no fraction where the schema wants one.
    twice = Grounding.of([Message.user("Payment on $5 at 5% for 5 years?")], [LOAN])
    assert twice.arguments("loan_payment", {"principal": 5, "rate": 5}) == {
        "principal": 5,
        "rate": 0.05,
    }


AMENITIES = ["Patio", "Wi-Fi", "Happy Hour", "Wheelchair Accessible"]
RESTAURANT = ToolDefinition(  # BFCL simple_python_363
    name="find_restaurant",
    description="The closest restaurant with the amenities asked for.",
    parameters={
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "amenities": {"type": "array", "items": {"type": "string", "enum": AMENITIES}},
            "cuisines": {"type": "array", "items": {"type": "string", "enum": ["Sushi", "Thai"]}},
        },
        "required": ["location", "cuisines"],
    },
)


def test_a_list_holding_every_option_keeps_the_options_the_conversation_mentions() -> None:
    def grounded(said: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return Grounding.of([Message.user(said)], [RESTAURANT]).arguments(
            "find_restaurant", arguments
        )

    every = {"location": "Boston", "amenities": AMENITIES}
    assert grounded("Sushi in Boston with a patio?", every) == {
        "location": "Boston",
        "amenities": ["Patio"],
    }
    # Whole, however punctuated, or by a word that begins like one of the conversation's.
    assert grounded("A place with wifi and happy hours", every)["amenities"] == ["Happy Hour"]
    assert grounded("wi fi, and accessible to a wheelchair", every)["amenities"] == [
        "Wi-Fi",
        "Wheelchair Accessible",
    ]
    # Mentioning none, an optional list is left out and a required one stays as written.
    assert grounded("Dinner in Boston", every) == {"location": "Boston"}
    both = {"location": "Boston", "cuisines": ["Sushi", "Thai"]}
    assert grounded("Dinner in Boston", both) == both
    # A list of some of the options is a choice: it stays, mentioned or not.
    chosen = {"location": "Boston", "amenities": ["Patio", "Wi-Fi"]}
    assert grounded("Dinner in Boston", chosen) == chosen


@given(
    st.lists(st.sampled_from(AMENITIES), max_size=6),
    st.lists(st.sampled_from(["Sushi", "Thai", "Greek"]), max_size=3),
    st.text(max_size=60),
)
def test_a_list_of_options_is_only_ever_cut_down(
    amenities: list[str], cuisines: list[str], said: str
) -> None:
    arguments = {"amenities": amenities, "cuisines": cuisines}
    kept = Grounding.of([Message.user(said)], [RESTAURANT]).arguments("find_restaurant", arguments)
    for name, options in (("amenities", AMENITIES), ("cuisines", ["Sushi", "Thai"])):
        if name not in kept:
            assert name == "amenities" and set(amenities) == set(AMENITIES)
            continue
        cut, written = kept[name], arguments[name]
        assert cut == [option for option in written if option in cut]
        assert cut == written or (cut and set(written) == set(options))


CIRCLE = ToolDefinition(  # BFCL parallel_multiple_131, with a height and two more units
    name="circle_area",
    description="The area of a circle, or the volume of a cylinder of that base.",
    parameters={
        "type": "object",
        "properties": {
            "radius": {"type": "number"},
            "height": {"type": "number"},
            "units": {
                "type": "string",
                "description": "The units in which the radius is measured (defaults to meters).",
            },
            "output_unit": {"type": "string", "enum": ["m2", "ft2", "acre"], "default": "m2"},
            "unit_system": {"type": "string", "description": "metric or imperial. Default metric"},
        },
        "required": ["radius"],
    },
)


def test_a_unit_left_to_the_default_is_the_one_the_request_writes_for_the_calls_numbers() -> None:
    def units(said: str, arguments: dict[str, Any]) -> dict[str, Any]:
        grounded = Grounding.of([Message.user(said)], [CIRCLE]).arguments("circle_area", arguments)
        return {name: value for name, value in grounded.items() if name not in arguments}

    assert units("The area of a circle with a radius of 5.6 feet", {"radius": 5.6}) == {
        "units": "feet"
    }
    assert units("A cylinder 20cm across and 2,000 cm tall", {"height": 2000}) == {"units": "cm"}
    # The default itself, a unit of another kind (or none), another number's unit: no change.
    assert units("a radius of 3 meters", {"radius": 3}) == {}
    assert units("a radius of 3 seconds, or 3 in the box", {"radius": 3}) == {}
    assert units("a radius of 3 and a height of 4 feet", {"radius": 3}) == {}
    # Two units for the call's numbers leave the choice to the model.
    assert units("radius 3 feet, height 4 inches", {"radius": 3, "height": 4}) == {}
    # A unit the model wrote stays as written; an option is named as the tool names it.
    assert units("5.6 feet", {"radius": 5.6, "units": "ft"}) == {}
    area = Grounding.of([Message.user("a field of radius 0.5 square feet")], [CIRCLE])
    assert area.arguments("circle_area", {"radius": 0.5}) == {"radius": 0.5, "output_unit": "ft2"}


@given(st.floats(0.1, 1e4, allow_nan=False), st.text(max_size=40), st.text(max_size=40))
def test_a_unit_filled_in_is_written_after_a_number_of_the_call(
    radius: float, before: str, after: str
) -> None:
    said = f"{before} {radius:g} {after}"
    grounded = Grounding.of([Message.user(said)], [CIRCLE]).arguments(
        "circle_area", {"radius": radius}
    )
    assert grounded.keys() <= {"radius", "units", "output_unit"}
    if "units" in grounded:
        assert known_unit(grounded["units"]) is not None
        assert re.search(
            rf"(?<![\w.]){re.escape(f'{radius:g}')}\s?{re.escape(grounded['units'])}", said
        )


def test_a_call_that_made_up_an_argument_is_written_again_without_it() -> None:
    grounding = Grounding.of(ASKED, [SCHEDULE])
    for call_format in (HERMES, PROMPTED):
        first = call_format.write("team_schedule", {"team": "Manchester United"}, first=True)
        made_up = {"team": "Manchester United", "games": 6, "venue": "away"}
        second = call_format.write("team_schedule", made_up, first=False)
        calls = _WholeCalls(call_format, grounding)
        # Fed in pieces, as a generation arrives: nothing is passed on before a call is whole.
        pieces = [*first, *second]
        cuts = [cut for piece in pieces for cut in calls.feed(piece)]
        assert cuts[1].written == made_up  # what the model wrote is kept, to be shown
        out = [(cut.text, cut.key) for cut in cuts]
        assert out == [
            (first, call_key("team_schedule", {"team": "Manchester United"})),
            (
                call_format.write(
                    "team_schedule", {"team": "Manchester United", "games": 6}, first=False
                ),
                call_key("team_schedule", {"team": "Manchester United", "games": 6}),
            ),
        ]
        # Without grounding the call goes on as the model wrote it.
        untouched = _WholeCalls(call_format)
        assert [cut.text for cut in untouched.feed(first + second)] == [first, second]


def test_a_call_asking_a_tool_for_part_of_what_an_earlier_call_asked_is_made_already() -> None:
    # BFCL parallel_multiple_116: after the Italian and the Chinese restaurants of Paris, the
    # model asks for the restaurants of Paris.
    def call(name: str, **arguments: object) -> _Call:
        return _Call("", name, arguments, arguments)

    italian = call("restaurant_info", location="Paris", food_type="Italian", stars=4.0)
    earlier = [italian, call("restaurant_info", location="Paris", food_type="Chinese")]
    assert call("restaurant_info", location="Paris").narrows(earlier)
    assert call("restaurant_info", location="Paris", stars=4).narrows(earlier)  # 4 == 4.0
    assert call("restaurant_info").narrows(earlier)
    # Another value, another tool, or a flag turned the other way asks for something else.
    assert not call("restaurant_info", location="Paris", food_type="Thai").narrows(earlier)
    assert not call("hotel_info", location="Paris").narrows(earlier)
    assert not call("restaurant_info", location="Paris", open_now=False).narrows(earlier)
    assert not call("restaurant_info", location="Paris").narrows([])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(
    st.text(min_size=1, max_size=12),
    st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
    st.booleans(),
)
def test_a_call_written_again_reads_back_as_that_call(
    name: str, arguments: dict[str, Any], first: bool
) -> None:
    for call_format in (HERMES, PROMPTED, BARE_JSON):
        written = call_format.write(name, arguments, first=first)
        assert call_format.whole_call(written, 0, first=first) == (
            len(written),
            {"name": name, "arguments": arguments},
        )


def _tool(name: str, required: list[str], **properties: dict[str, Any]) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=name.replace("_", " "),
        parameters={"type": "object", "properties": properties, "required": required},
    )


BELIEFS = _tool("religion_core_beliefs", ["religion"], religion={"type": "string"})
STOCK = _tool("stock_data", ["symbol"], symbol={"type": "string"})
RAINFALL = _tool(
    "precipitation_stats",
    ["location", "time_frame"],
    location={"type": "string"},
    time_frame={"type": "string", "enum": ["six_months", "year", "five_years"]},
)
EVENT_DATE = _tool(
    "event_date",
    ["event_name"],
    event_name={"type": "string"},
    calculate_years_ago={"type": "boolean"},
)
ENTROPY = _tool(
    "entropy_change",
    ["initial_temp", "final_temp"],
    initial_temp={"type": "number"},
    final_temp={"type": "number"},
    isothermal={"type": "boolean", "default": True},
)


def test_a_later_call_with_a_value_the_request_never_gave_is_made_up() -> None:
    # BFCL parallel_multiple_111: after Buddhism and Hinduism, Judaism, Christianity, Islam.
    asked = Grounding.of(
        [Message.user("What are the core beliefs of Buddhism, and of Hinduism?")], [BELIEFS]
    )
    buddhism, hinduism, judaism = ({"religion": r} for r in ("Buddhism", "Hinduism", "Judaism"))
    earlier = [(BELIEFS.name, buddhism)]
    assert not asked.made_up(BELIEFS.name, hinduism, earlier)
    assert asked.made_up(BELIEFS.name, judaism, [*earlier, (BELIEFS.name, hinduism)])
    # The first call of a reply is the model's reading of the request, not judged so.
    assert not asked.made_up(BELIEFS.name, judaism, [])
    # Only the tool's own earlier calls show where its values come from.
    assert not asked.made_up(BELIEFS.name, judaism, [("history_of", buddhism)])
    # Where they too passed values of their own, those are the model's knowledge.
    tickers = Grounding.of([Message.user("Closing prices of Apple, Google and Microsoft")], [STOCK])
    known = [(STOCK.name, {"symbol": "AAPL"}), (STOCK.name, {"symbol": "GOOGL"})]
    assert not tickers.made_up(STOCK.name, {"symbol": "MSFT"}, known)


def test_a_later_call_with_an_option_nobody_mentioned_beside_ones_mentioned_is_made_up() -> None:
    # BFCL parallel_multiple_173: six months of rain between the past year and five years.
    asked = Grounding.of(
        [Message.user("Rainfall in the Amazon for the past year, then for five years.")],
        [RAINFALL],
    )
    year = {"location": "Amazon", "time_frame": "year"}
    earlier = [(RAINFALL.name, year)]
    assert asked.made_up(RAINFALL.name, {**year, "time_frame": "six_months"}, earlier)
    assert not asked.made_up(RAINFALL.name, {**year, "time_frame": "five_years"}, earlier)
    # Mentioning no option, the request leaves the choice to the model.
    vague = Grounding.of([Message.user("Rainfall in the Amazon and the Congo")], [RAINFALL])
    assert not vague.made_up(RAINFALL.name, {**year, "location": "Congo"}, earlier)


def test_a_later_call_turning_off_a_flag_the_request_never_turns_off_is_made_up() -> None:
    # BFCL parallel_multiple_93: "how many years ago" asked for, then the same call without.
    asked = Grounding.of(
        [
            Message.user(
                "When were the Magna Carta and the Treaty of Rome signed, how many years ago?"
            )
        ],
        [EVENT_DATE],
    )
    on = {"event_name": "Magna Carta", "calculate_years_ago": True}
    earlier = [(EVENT_DATE.name, on)]
    assert asked.made_up(EVENT_DATE.name, {**on, "calculate_years_ago": False}, earlier)
    assert not asked.made_up(EVENT_DATE.name, {**on, "event_name": "Treaty of Rome"}, earlier)
    assert not asked.made_up(EVENT_DATE.name, on, [(EVENT_DATE.name, {**on, "x": 1})])
    # Turned off in the request, or made a condition of, with and without ask two things.
    isothermal = {"initial_temp": 300, "final_temp": 350, "isothermal": True}
    for said in (
        "From 300 K to 350 K, isothermal. What if the process is not isothermal?",
        "From 300 K to 350 K; and what if the process were isothermal?",
    ):
        varied = Grounding.of([Message.user(said)], [ENTROPY])
        off = {**isothermal, "isothermal": False}
        assert not varied.made_up(ENTROPY.name, off, [(ENTROPY.name, isothermal)])
    # Left out, a flag on by default stays on: nothing is turned off.
    plain = Grounding.of([Message.user("From 300 K to 350 K, isothermal.")], [ENTROPY])
    assert plain.made_up(
        ENTROPY.name, {**isothermal, "isothermal": False}, [(ENTROPY.name, isothermal)]
    )
    left_out = {"initial_temp": 300, "final_temp": 350}
    assert not plain.made_up(ENTROPY.name, left_out, [(ENTROPY.name, isothermal)])


BALANCE = _tool(
    "calculate_balance",
    ["account"],
    account={"type": "string"},
    transactions={
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"amount": {"type": "number"}, "type": {"type": "string"}},
        },
    },
)


def test_a_list_or_object_holding_a_made_up_value_is_left_out() -> None:
    # BFCL parallel_multiple_26: transactions nobody gave for "the total balance".
    asked = Grounding.of(
        [Message.user("Get the history of account '00125648' and calculate the total balance.")],
        [BALANCE],
    )
    made = {"account": "00125648", "transactions": [{"amount": 100.0, "type": "credit"}]}
    assert asked.arguments(BALANCE.name, made) == {"account": "00125648"}
    given_ = Grounding.of(
        [Message.user("Account '00125648' had a credit of 100 and a debit of 40: the balance?")],
        [BALANCE],
    )
    both = [{"amount": 100, "type": "credit"}, {"amount": 40, "type": "debit"}]
    assert given_.arguments(BALANCE.name, {**made, "transactions": both}) == {
        **made,
        "transactions": both,
    }
    playing = Grounding.of([Message.user("Arsenal's next games against Chelsea")], [SCHEDULE])
    for opponents, kept in ((["Chelsea"], True), (["Chelsea", "Liverpool"], False)):
        call = {"team": "Arsenal", "opponents": opponents}
        assert ("opponents" in playing.arguments(SCHEDULE.name, call)) is kept


CONVERT = _tool(
    "unit_convert",
    ["value", "from_unit", "to_unit"],
    value={"type": "number"},
    from_unit={"type": "string"},
    to_unit={"type": "string"},
)


def test_a_conversion_written_backwards_is_turned_round() -> None:
    # BFCL parallel_multiple_92.
    vase = Grounding.of(
        [Message.user("The vase is 24 inches tall, but I know centimeters. How tall is it?")],
        [CONVERT],
    )
    forwards = {"value": 24, "from_unit": "inches", "to_unit": "centimeters"}
    backwards = {**forwards, "from_unit": "centimeters", "to_unit": "inches"}
    assert vase.arguments(CONVERT.name, backwards) == forwards
    assert vase.arguments(CONVERT.name, forwards) == forwards
    # Units of two kinds, or a number written after both units or neither: as written.
    assert vase.arguments(CONVERT.name, {**backwards, "from_unit": "kilograms"}) == {
        **backwards,
        "from_unit": "kilograms",
    }
    for said in ("Is 24 inches more than 24 centimeters?", "Take 24, in inches or centimeters"):
        either = Grounding.of([Message.user(said)], [CONVERT])
        assert either.arguments(CONVERT.name, backwards) == backwards


TRAFFIC = _tool(  # BFCL multiple_66
    "traffic_estimate",
    ["start_location", "end_location"],
    start_location={"type": "string"},
    end_location={"type": "string"},
)


def test_ends_written_backwards_are_turned_round_where_the_request_says_from_and_to() -> None:
    trip = Grounding.of(
        [Message.user("How much traffic should I expect from Las Vegas to Los Angeles?")],
        [TRAFFIC],
    )
    forwards = {"start_location": "Las Vegas", "end_location": "Los Angeles"}
    backwards = {"start_location": "Los Angeles", "end_location": "Las Vegas"}
    assert trip.arguments(TRAFFIC.name, backwards) == forwards
    assert trip.arguments(TRAFFIC.name, forwards) == forwards
    units = Grounding.of([Message.user("Take 24 from inches to centimeters")], [CONVERT])
    assert units.arguments(
        CONVERT.name, {"value": 24, "from_unit": "centimeters", "to_unit": "inches"}
    ) == {"value": 24, "from_unit": "inches", "to_unit": "centimeters"}
    # Both ways written, or the pair never written "from ... to": as written.
    for said in (
        "From Las Vegas to Los Angeles, then from Los Angeles back to Las Vegas.",
        "Traffic between Las Vegas and Los Angeles?",
    ):
        either = Grounding.of([Message.user(said)], [TRAFFIC])
        assert either.arguments(TRAFFIC.name, backwards) == backwards


MAIL_SEARCH = _tool(
    "search_emails",
    [],
    query={"type": "string", "default": ""},
    unread_only={"type": "boolean", "default": False, "description": "only unread messages"},
    maxResults={"type": "integer", "default": 10},
)


def test_free_text_writing_another_parameters_coined_name_is_left_out() -> None:
    unread = Grounding.of([Message.user("any unread emails?")], [MAIL_SEARCH])
    for schema_copied in ("unread_only: true", "maxResults=5 unread", "unread_only"):
        written = {"query": schema_copied, "unread_only": True}
        assert unread.arguments(MAIL_SEARCH.name, written) == {"unread_only": True}
    # The words of a name, a name the user writes, and a value of its own are the user's.
    for query in ("unread", "only unread from Dana", "unread_only_flag"):
        written = {"query": query, "unread_only": True}
        assert unread.arguments(MAIL_SEARCH.name, written) == written
    coined = Grounding.of([Message.user("search for unread_only in my mail")], [MAIL_SEARCH])
    assert coined.arguments(MAIL_SEARCH.name, {"query": "unread_only"})["query"] == "unread_only"


RUN_TESTS = ToolDefinition(
    name="run_tests",
    description="Run the test suite (pytest) or part of it, and report what passed and failed.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "default": "tests", "description": "a test file or folder"},
            "keyword": {
                "type": "string",
                "description": "only tests whose name contains this, e.g. 'cache'; or 'all'",
            },
        },
    },
)


def test_optional_free_text_that_is_the_documentation_not_the_users_is_left_out() -> None:
    tests = Grounding.of([Message.user("Does the test suite pass?")], [RUN_TESTS])
    for copied in ("pytest", "test file or folder", "a test file or folder", "Pytest report"):
        assert tests.arguments(RUN_TESTS.name, {"keyword": copied}) == {}
    # The user's words, the documentation's examples and quoted values, and words of the
    # documentation the conversation mentions are the user's to pass.
    for own in ("cache", "cache tests", "all", "suite", "api failed"):
        assert tests.arguments(RUN_TESTS.name, {"keyword": own}) == {"keyword": own}
    asked = Grounding.of(
        [Message.user("run the tests with pytest, only the failed ones")], [RUN_TESTS]
    )
    assert asked.arguments(RUN_TESTS.name, {"keyword": "failed"}) == {"keyword": "failed"}
    assert asked.arguments(RUN_TESTS.name, {"path": "tests"}) == {"path": "tests"}


GIT_LOG = _tool(
    "git_log",
    [],
    author={"type": "string", "description": "only commits by this author"},
    path={"type": "string", "description": "only commits that changed this file or folder"},
)


def test_an_optional_path_nobody_wrote_is_left_out() -> None:
    omar = Grounding.of([Message.user("what did Omar Said commit?")], [GIT_LOG])
    made = {"author": "Omar", "path": "tests"}
    assert omar.arguments(GIT_LOG.name, made) == {"author": "Omar"}
    assert omar.arguments(GIT_LOG.name, {"path": "tests/src/weatherly/tests.py"}) == {}
    # A path the conversation wrote, whole, by its file's name or its stem as a word, stays.
    for said, path in [
        ("which commits touched src/weatherly/cache.py?", "src/weatherly/cache.py"),
        ("which commits touched cache.py?", "src/weatherly/cache.py"),
        ("what changed in the tests folder?", "tests"),
    ]:
        grounding = Grounding.of([Message.user(said)], [GIT_LOG])
        assert grounding.arguments(GIT_LOG.name, {"path": path}) == {"path": path}


SEARCH_CODE = _tool(
    "search_code",
    ["text"],
    text={"type": "string"},
    file_pattern={"type": "string", "description": "only files matching this glob"},
)


def test_optional_free_text_holding_only_what_a_required_value_holds_is_left_out() -> None:
    httpx = Grounding.of([Message.user("search for httpx")], [SEARCH_CODE])
    made = {"text": "httpx", "file_pattern": "*httpx*"}
    assert httpx.arguments(SEARCH_CODE.name, made) == {"text": "httpx"}
    # Written twice by the request, or holding more of it: the user's to pass.
    for said, pattern in [
        ("search for httpx in the httpx files", "*httpx*"),
        ("search for httpx in python files", "*.py"),
    ]:
        grounding = Grounding.of([Message.user(said)], [SEARCH_CODE])
        made = {"text": "httpx", "file_pattern": pattern}
        assert grounding.arguments(SEARCH_CODE.name, made) == made


def test_a_path_holding_only_what_another_value_holds_of_the_request_is_missing() -> None:
    write = _tool(
        "write_file", ["path", "content"], path={"type": "string"}, content={"type": "string"}
    )
    asked = Grounding.of([Message.user("Create a file with this content: 'hello world'")], [write])
    assert asked.missing("write_file", {"path": "hello world", "content": "hello world"}) == "path"
    named = Grounding.of([Message.user("Write 'hello world' to hello.txt")], [write])
    assert named.missing("write_file", {"path": "hello.txt", "content": "hello world"}) is None


def test_a_value_equal_to_the_tools_default_is_kept_as_it_changes_nothing() -> None:
    unread = Grounding.of([Message.user("any unread emails?")], [MAIL_SEARCH])
    assert unread.arguments(MAIL_SEARCH.name, {"maxResults": 10}) == {"maxResults": 10}
    assert unread.arguments(MAIL_SEARCH.name, {"maxResults": 5}) == {}


def test_a_look_up_turning_on_a_flag_the_request_asks_for_looks_up_a_piece_of_it() -> None:
    # "any unread emails?": `read_email` lacked an id; listing the unread ones finds it.
    unread = Grounding.of([Message.user("any unread emails?")], [MAIL_SEARCH])
    assert unread.looks_up(MAIL_SEARCH.name, {"unread_only": True}, ["read_email"])
    assert not unread.looks_up(MAIL_SEARCH.name, {"unread_only": False}, ["read_email"])
    anything = Grounding.of([Message.user("any emails?")], [MAIL_SEARCH])
    assert not anything.looks_up(MAIL_SEARCH.name, {"unread_only": True}, ["read_email"])


def test_a_later_call_passing_a_unit_the_conversation_never_names_is_made_up() -> None:
    from toolwire.builtin import TOOLS

    tools = [t.definition for t in TOOLS]
    asked = Grounding.of([Message.user("What time is it in Tokyo, and what is 15% of 80?")], tools)
    earlier = [("current_time", {"timezone": "Asia/Tokyo"})]
    fahrenheit = {"value": 15.0, "from_unit": "\u00b0F", "to_unit": "\u00b0C"}
    assert asked.made_up("convert_units", fahrenheit, earlier)
    # Any spelling of a unit names it, after a number or alone.
    for said in ("I baked at 350\u00b0F: what is 15 F in celsius?", "fahrenheit to C: 15, 80"):
        named = Grounding.of([Message.user(said)], tools)
        assert not named.made_up("convert_units", fahrenheit, earlier)
    # The first call of a reply is the model's reading of the request.
    assert not asked.made_up("convert_units", fahrenheit, [])
    # An area is named by its length.
    area = _tool("triangle_area", ["base"], base={"type": "number"}, unit={"type": "string"})
    sides = Grounding.of([Message.user("Triangles of base 15 m, then of base 25 feet")], [area])
    earlier = [("triangle_area", {"base": 15, "unit": "square meters"})]
    assert not sides.made_up("triangle_area", {"base": 25, "unit": "square feet"}, earlier)
    assert sides.made_up("triangle_area", {"base": 25, "unit": "square miles"}, earlier)


@given(
    st.lists(st.from_regex(r"[A-Z][a-z]{3,8}", fullmatch=True), min_size=1, max_size=5),
    st.data(),
)
def test_later_calls_passing_what_the_request_gives_are_never_made_up(
    religions: list[str], data: st.DataObject
) -> None:
    asked = Grounding.of([Message.user(f"Core beliefs of {', '.join(religions)}")], [BELIEFS])
    picked = data.draw(st.lists(st.sampled_from(religions), min_size=1, max_size=4))
    earlier = [(BELIEFS.name, {"religion": religion}) for religion in picked[:-1]]
    assert not asked.made_up(BELIEFS.name, {"religion": picked[-1]}, earlier)


def test_each_change_to_a_call_is_told_with_its_reason() -> None:
    written = {"start": "Paris", "end": "Lyon", "city": "London", "rate": 5, "stats": False}
    grounded = {"start": "Lyon", "end": "Paris", "rate": 0.05, "stats": True, "unit": "feet"}
    assert changes(written, grounded) == (
        "end and start swapped: the request names them the other way round",
        "city='London' left out: the conversation never gave it, so the tool's default applies",
        "rate=5 became 0.05: the schema takes a fraction",
        "stats=False became True: the request asks for it",
        "unit='feet' added: the unit the request writes",
    )
    assert changes(written, written) == ()


REFUND = ToolDefinition(
    name="refund_order",
    description="Refund a delivered order, e.g. 'refund ORD-10517 in full'.",
    parameters={
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "description": 'the order\'s id, e.g. "ORD-10517"'},
            "reason": {"type": "string", "enum": ["damaged", "late", "other"]},
            "note": {"type": "string", "examples": ["box 42 was crushed"]},
            "channel": {"type": "string", "description": 'where it was bought, e.g. "web"'},
        },
        "required": ["order_id"],
    },
)


def test_an_identifier_copied_from_the_tools_documentation_is_found() -> None:
    asked = Grounding.of([Message.user("I want to refund an order")], [REFUND])
    assert asked.copied_example({"order_id": "ORD-10517"}) == "ORD-10517"
    assert asked.copied_example({"order_id": "ord-10517 "}) == "ord-10517 "
    assert asked.copied_example({"order_id": "X", "note": "box 42 was crushed"})
    # A value of the user's, or quoted without digits (no identifier), is no copy.
    assert asked.copied_example({"order_id": "ORD-20000"}) is None
    assert asked.copied_example({"order_id": "X", "channel": "web"}) is None
    assert asked.copied_example({"order_id": "ORD-10522"}) is None


CALCULATE = calculate.definition
"""Its description's examples: "17 * 23", "(2 + 3) ** 2 / 7", "log(100, 10)"."""


def test_an_example_with_a_number_of_the_request_swapped_in_is_a_copy() -> None:
    asked = Grounding.of([Message.user("I weigh 165 pounds. What is that in kg?")], [CALCULATE])
    assert asked.copied_example({"expression": "165 * 23"}) == "165 * 23"
    assert asked.copied_example({"expression": "17 / 3"}) == "17 / 3"
    # Numbers of one digit or powers of ten tell no example apart; the model's own are its own.
    assert asked.copied_example({"expression": "(2 + 3) ** 2 / 165"}) is None
    assert asked.copied_example({"expression": "165 * 0.4536"}) is None
    assert asked.copied_example({"expression": "165 / 100"}) is None
    # The request writes 23 itself.
    asked = Grounding.of([Message.user("what is 165 times 23")], [CALCULATE])
    assert asked.copied_example({"expression": "165 * 23"}) is None


def test_an_identifier_the_conversation_wrote_is_the_users_whatever_the_documentation_says() -> (
    None
):
    for said in ["Refund ORD-10517", "refund order 10517 please"]:
        asked = Grounding.of([Message.user(said)], [REFUND])
        assert asked.copied_example({"order_id": "ORD-10517"}) is None
    # An id a tool returned earlier in the conversation is given too.
    result = ToolResult(call_id="c1", name="search_orders", content='[{"id": "ORD-10517"}]')
    found = Message(role="tool", parts=(result,))
    asked = Grounding.of([Message.user("refund Omar's last order"), found], [REFUND])
    assert asked.copied_example({"order_id": "ORD-10517"}) is None


@given(st.text(alphabet="ORD-0123456789 abc", max_size=12))
def test_only_a_documented_value_or_one_of_its_numbers_is_ever_a_copy(value: str) -> None:
    asked = Grounding.of([Message.user("refund my order")], [REFUND])
    copied = asked.copied_example({"order_id": value})
    whole = value.strip().casefold() in {"ord-10517", "refund ord-10517 in full"}
    assert copied is None or whole or set(re.findall(r"\d+", value)) & {"10517", "42"}


def test_a_later_call_of_another_tool_must_take_up_more_of_the_request_or_be_named() -> None:
    tools = [
        ToolDefinition(name=n, description=n, parameters={"type": "object"})
        for n in ("convert_units", "search_notes", "current_time", "calculate")
    ]
    asked = Grounding.of([Message.user("I weigh 165 pounds. What is that in kilograms?")], tools)
    converted = [("convert_units", {"value": 165, "from_unit": "pounds", "to_unit": "kg"})]
    assert asked.made_up("search_notes", {"query": "165 pounds"}, converted)
    assert asked.made_up("current_time", {"timezone": "UTC"}, converted)
    # Its default asks for nothing either.
    clock = ToolDefinition(
        name="current_time",
        description="the time",
        parameters={"type": "object", "properties": {"timezone": {"default": "UTC"}}},
    )
    defaulted = Grounding.of([Message.user("I weigh 165 pounds. What's that in kg?")], [clock])
    assert defaulted.made_up("current_time", {"timezone": "UTC"}, converted)
    assert defaulted.made_up("current_time", {}, converted)
    assert not asked.made_up("calculate", {"expression": "165 * 0.4536"}, [])
    both = Grounding.of([Message.user("time in Mumbai, and what's 5 + 5")], tools)
    added = [("calculate", {"expression": "5 + 5"})]
    # The request names the tool: a value of the model's knowledge is the model's reading.
    assert not both.made_up("current_time", {"timezone": "Asia/Kolkata"}, added)


def test_after_results_a_call_asking_again_what_was_asked_is_found() -> None:
    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    request = Message.user("What time is it in Paris, in Tokyo and in London?")
    made = [
        ToolCall(id=f"c{i}", name="current_time", arguments={"timezone": zone})
        for i, zone in enumerate(["Paris", "Tokyo"])
    ]
    results = [
        ToolResult(call_id=call.id, name=call.name, content="Saturday 10:00") for call in made
    ]
    conversation = [
        request,
        Message(role="assistant", parts=tuple(made)),
        *(Message(role="tool", parts=(result,)) for result in results),
    ]
    asked = Grounding.of(conversation, [clock])
    assert asked.asks_nothing_new("current_time", {"timezone": "Europe/Paris"})
    # A value of a result, or worked out, or a piece of the request not asked yet: a step on.
    assert not asked.asks_nothing_new("current_time", {"timezone": "Asia/Kolkata"})
    assert not asked.asks_nothing_new("current_time", {"timezone": "Europe/London"})
    # A new request is the model's to read: nothing is asked again yet.
    assert not Grounding.of([request], [clock]).asks_nothing_new(
        "current_time", {"timezone": "Paris"}
    )


def test_after_results_a_call_narrowing_its_own_by_what_it_found_asks_nothing_new() -> None:
    search = ToolDefinition(name="search_emails", description="search", parameters={})
    listing = ToolDefinition(name="list_files", description="list", parameters={})

    def after(request: str, name: str, arguments: dict[str, Any], found: str) -> Grounding:
        call = ToolCall(id="c1", name=name, arguments=arguments)
        return Grounding.of(_answered(request, call, found), [search, listing])

    priya = after(
        "Show me emails from Priya about the budget",
        "search_emails",
        {"query": "Priya", "limit": 10},
        '[{"from": "Priya Natarajan <priya.n@lumenlabs.com>"}]',
    )
    assert priya.asks_nothing_new("search_emails", {"query": "Priya Natarajan", "limit": 10})
    # Another part of the request: a step on.
    assert not priya.asks_nothing_new("search_emails", {"query": "Priya budget", "limit": 10})
    files = after(
        "list the python files in src and in tests",
        "list_files",
        {"path": "src"},
        '[{"path": "src/weatherly/__init__.py"}]',
    )
    assert files.asks_nothing_new("list_files", {"path": "src/weatherly/__init__.py"})
    assert not files.asks_nothing_new("list_files", {"path": "tests"})
    # A value that does not hold the earlier one whole is no narrowing.
    assert not files.asks_nothing_new("list_files", {"path": "weatherly"})
    log = ToolDefinition(name="git_log", description="commits", parameters={})
    found = '[{"author": "Omar Said", "files": ["tests/test_units.py"]}]'

    def log_after(request: str) -> Grounding:
        call = ToolCall(id="c1", name="git_log", arguments={"author": "Omar"})
        return Grounding.of(_answered(request, call, found), [log])

    # The name completed as the log wrote it, and a file it listed: the log's own result.
    omar = log_after("what did Omar Said commit?")
    assert omar.asks_nothing_new("git_log", {"author": "Omar Said"})
    assert omar.asks_nothing_new("git_log", {"author": "Omar Said", "path": "tests/test_units.py"})
    # The file asked for by the request, or one the log never wrote: a step on.
    both = log_after("what did Omar commit, and what changed in tests/test_units.py?")
    assert not both.asks_nothing_new("git_log", {"path": "tests/test_units.py"})
    assert not omar.asks_nothing_new("git_log", {"author": "Omar", "path": "src/units.py"})


def test_after_results_a_call_handing_its_tool_back_its_own_number_asks_nothing_new() -> None:
    calculator = ToolDefinition(name="calculate", description="arithmetic", parameters={})
    lookup = ToolDefinition(
        name="order_total",
        description="an order's total",
        parameters={},
        side_effect="read_only",
    )
    worked_out = ToolCall(id="c1", name="calculate", arguments={"expression": "15% of 80"})
    conversation = _answered(
        "What is 15% of 80 and what time is it in Tokyo?", worked_out, "15 * 80 / 100 = 12"
    )
    asked = Grounding.of(conversation, [calculator, lookup])
    assert asked.asks_nothing_new("calculate", {"expression": "12"})
    # Worked on further, handed to another tool, or not a number: a step on.
    assert not asked.asks_nothing_new("calculate", {"expression": "12 * 2"})
    assert not asked.asks_nothing_new("order_total", {"order": "12"})
    assert not asked.asks_nothing_new("calculate", {"expression": "Tokyo"})


def test_after_results_a_call_to_a_tool_nobody_asked_for_with_values_nobody_gave_is_found() -> None:
    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    converter = ToolDefinition(name="convert_units", description="units", parameters={})
    orders = ToolDefinition(
        name="order_status", description="an order", parameters={}, side_effect="read_only"
    )
    made = ToolCall(id="c1", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    found = "Saturday 12:59 in Asia/Tokyo; your order ORD-17 shipped"
    conversation = _answered("What time is it in Tokyo?", made, found)
    asked = Grounding.of(conversation, [clock, converter, orders])
    assert asked.asks_nothing_new(
        "convert_units", {"value": 12.59, "from_unit": "km", "to_unit": "mi"}
    )
    # A value a result gave is a step on.
    assert not asked.asks_nothing_new("order_status", {"order_id": "ORD-17"})


def test_after_results_the_tools_that_may_take_up_a_part_no_call_took_up() -> None:
    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    calculator = ToolDefinition(name="calculate", description="arithmetic", parameters={})
    notes = ToolDefinition(name="search_notes", description="notes", parameters={})
    tools = [clock, calculator, notes]

    def after(question: str, call: ToolCall, failed: bool = False) -> list[str]:
        conversation = _answered(question, call, failed=failed)
        return [tool.name for tool in Grounding.of(conversation, tools).tools_left(tools)]

    percent = ToolCall(id="c1", name="calculate", arguments={"expression": "15 * 80 / 100"})
    assert after("What is 15% of 80 and what time is it in Tokyo?", percent) == ["current_time"]
    assert after("Calculate 15% of 80, then note it", percent) == ["search_notes"]
    assert after("Calculate 15% of 80", percent) == []
    # Named by none of the tools left, a part is still left where values are: any tool may
    # take it up.
    tokyo = ToolCall(id="c1", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    left = after("What time is it in Tokyo, and what is 15% of 80?", tokyo)
    assert left == ["calculate", "search_notes"]
    assert after("What time is it in Tokyo?", tokyo) == []
    # Values a call left that failed, or made its own values up, are no other part.
    assert after("What time is it in Tokyo, and what is 15% of 80?", tokyo, failed=True) == []
    utc = ToolCall(id="c1", name="current_time", arguments={"timezone": "UTC"})
    assert after("What time is it in Tokyo, and what is 15% of 80?", utc) == []
    # A new request is the model's to read.
    assert Grounding.of([Message.user("what time is it?")], tools).tools_left(tools) == []


def test_a_tool_is_named_by_a_word_its_description_alone_writes() -> None:
    clock = ToolDefinition(name="current_time", description="The time in a zone.", parameters={})
    notes = ToolDefinition(
        name="search_notes",
        description="Search toolwire's notes: strict mode, limits.",
        parameters={},
    )
    log = ToolDefinition(
        name="git_log", description="The latest commits, with their time.", parameters={}
    )
    tools = [clock, notes, log]
    assert described_by((tool.name, tool.description) for tool in tools) == {
        "current_time": frozenset({"current", "zone"}),
        "search_notes": frozenset({"search", "toolwire", "notes", "strict", "mode", "limits"}),
        "git_log": frozenset({"latest", "commits"}),
    }
    tokyo = ToolCall(id="c1", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    question = "what's the time in tokyo and what does toolwire's strict mode do"
    grounding = Grounding.of(_answered(question, tokyo, "23:25 in Asia/Tokyo"), tools)
    left = grounding.tools_left(tools)
    assert [tool.name for tool in left] == ["search_notes"]
    assert grounding.part_left(question, left) == "what does toolwire's strict mode do"


def test_the_part_left_is_the_clause_naming_a_tool_left_or_holding_a_value_left() -> None:
    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    calculator = ToolDefinition(name="calculate", description="arithmetic", parameters={})
    emails = ToolDefinition(name="search_emails", description="mail", parameters={})
    tools = [clock, calculator, emails]

    def left(question: str, call: ToolCall) -> str:
        grounding = Grounding.of(_answered(question, call), tools)
        return grounding.part_left(question, grounding.tools_left(tools))

    tokyo = ToolCall(id="c1", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    asked = "What time is it in Tokyo, and do I have any unread emails?"
    assert left(asked, tokyo) == "do I have any unread emails?"
    assert left("What time is it in Tokyo and what is 15% of 80?", tokyo) == "what is 15% of 80?"
    # One clause, or each one left: the whole request.
    assert left("Is 15% of 80 more than the time in Tokyo?", tokyo) == (
        "Is 15% of 80 more than the time in Tokyo?"
    )
    both = "Check my emails. Then check the emails again"
    assert left(both, tokyo) == both
    # "and" before the verb of any of the tools, called or not, goes on to another thing.
    tests = ToolDefinition(name="run_tests", description="run the tests", parameters={})
    log = ToolDefinition(name="git_log", description="the commits", parameters={})
    ran = ToolCall(id="c1", name="run_tests", arguments={"keyword": "cache"})
    request = "Show me Maya Lin's last 2 commits and run the cache tests"
    grounding = Grounding.of(_answered(request, ran), [tests, log])
    assert grounding.part_left(request, [log]) == "Show me Maya Lin's last 2 commits"


def test_a_clause_writing_a_name_no_call_holds_is_left_for_the_tools_called() -> None:
    @tool(side_effect="read_only")
    def search_products(query: str) -> str:
        """Search the catalogue."""
        return query

    @tool(side_effect="destructive")
    def delete_product(name: str) -> str:
        """Remove a product."""
        return name

    @tool(side_effect="read_only")
    def list_events(date: str) -> str:
        """The calendar's events on a day."""
        return date

    tools = [search_products.definition, delete_product.definition, list_events.definition]

    def named(question: str, call: ToolCall) -> tuple[str, list[str]] | None:
        grounding = Grounding.of(_answered(question, call, "[...]"), tools)
        left = grounding.named_left(question, tools)
        return None if left is None else (left[0], [tool.name for tool in left[1]])

    def search(query: str) -> ToolCall:
        return ToolCall(id="c1", name="search_products", arguments={"query": query})

    asked = "Is the AeroPress Go in stock, and how much is the Hario Buono kettle?"
    assert named(asked, search("Hario Buono kettle")) == (
        "Is the AeroPress Go in stock",
        ["search_products"],  # the tool called, and never one that destroys
    )
    assert named("Is the AeroPress Go in stock? And the Hario kettle?", search("AeroPress Go")) == (
        "And the Hario kettle?",
        ["search_products"],
    )
    # One clause, every name held, or each clause left: nothing.
    assert named("How much is the AeroPress Go and the Hario kettle?", search("Hario")) is None
    assert named("Find the AeroPress Go. Then find the Hario", search("aeropress go hario")) is None
    assert named("Find the AeroPress Go. Then find the Hario", search("kettle")) is None
    # A day's or a month's name is held as a date.
    on_the_19th = ToolCall(id="c1", name="list_events", arguments={"date": "2026-03-19"})
    assert named("What do I have on March 19? And on Monday?", on_the_19th) is None
    # A new request is the model's to read.
    grounding = Grounding.of([Message.user(asked)], tools)
    assert grounding.named_left(asked, tools) is None


def test_a_required_date_nobody_named_is_missing_only_from_a_call_that_changes_something() -> None:
    @tool(side_effect="idempotent")
    def create_event(title: str, date: str, start_time: str) -> str:
        """Create an event.

        Args:
            title: what the event is
            date: the day, as YYYY-MM-DD
            start_time: when it starts, HH:MM
        """
        return title

    @tool(side_effect="read_only")
    def list_events(date: str) -> str:
        """The events of a day, as YYYY-MM-DD."""
        return date

    tools = [create_event.definition, list_events.definition]
    made = {"title": "Meeting with Marco", "date": "2026-03-10", "start_time": "10:00"}
    system = Message.system("Today is 2026-03-10.")
    unnamed = Grounding.of([system, Message.user("Schedule a meeting with Marco")], tools)
    assert unnamed.missing("create_event", made) == "date"
    assert not unnamed.findable("create_event", "date")
    # A look-up may take today; a day the user names is theirs.
    assert unnamed.missing("list_events", {"date": "2026-03-10"}) is None
    named = Grounding.of([system, Message.user("Schedule a meeting with Marco tomorrow")], tools)
    assert named.missing("create_event", {**made, "date": "2026-03-11"}) is None


def test_a_look_up_instead_of_an_unfounded_call_asks_for_more_than_its_action() -> None:
    def looks_up(request: str, tool: str, arguments: dict[str, Any], unfounded: str) -> bool:
        return Grounding.of([Message.user(request)], []).looks_up(tool, arguments, [unfounded])

    assert looks_up(
        "cancel the dentist on thursday", "list_events", {"query": "dentist"}, "cancel_event"
    )
    assert looks_up("open Lena's email", "search_emails", {"sender": "Lena"}, "readEmail")
    # Words of the action's own name say again what is to be done, not what to find.
    assert not looks_up(
        "I want to refund an order", "search_orders", {"query": "refund order"}, "refund_order"
    )
    assert not looks_up("where's my order?", "search_products", {"query": "orders"}, "get_order")


def test_the_part_a_call_took_up_is_the_clause_holding_its_values_or_naming_it() -> None:
    names = ["current_time", "calculate", "cancel_order", "search_orders"]
    grounding = Grounding.of([Message.user("hi")], [])

    def taken(question: str, tool: str, arguments: dict[str, Any]) -> str:
        return grounding.part_taken_up(question, tool, arguments, names)

    asked = "What time is it in Tokyo, and what is 15% of 80?"
    assert taken(asked, "current_time", {"timezone": "Asia/Tokyo"}) == "What time is it in Tokyo"
    assert taken(asked, "calculate", {"expression": "80 * 0.15"}) == "what is 15% of 80?"
    found_then = "Look up Kai's latest purchase, then cancel it"
    assert taken(found_then, "cancel_order", {"order_id": "ORD-10522"}) == "cancel it"
    # Taken up by no clause, or by each: the whole question.
    assert taken(asked, "calculate", {"expression": "2 + 2"}) == asked
    assert taken("What is 15% of 80?", "calculate", {"expression": "80 * 0.15"}) == (
        "What is 15% of 80?"
    )


def test_a_part_left_is_taken_up_by_the_values_a_call_asks_not_its_defaults() -> None:
    @tool
    def search_emails(query: str = "", unread_only: bool = False, limit: int = 10) -> str:
        """Search the mailbox."""
        return ""

    emails = search_emails.definition
    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    made = ToolCall(id="c1", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    conversation = _answered(
        "What time is it in Tokyo, and do I have any unread emails?", made, "9:00"
    )
    grounding = Grounding.of(conversation, [clock, emails])
    arguments = {"query": "unread", "unread_only": True, "limit": 10}
    assert grounding.takes_up_part("search_emails", arguments)
    assert not grounding.takes_up_part("search_emails", {**arguments, "limit": 25})
    assert not grounding.takes_up_part("search_emails", {"query": "Tokyo"})


def test_a_call_that_found_nothing_took_up_no_part_of_the_request() -> None:
    @tool
    def list_files(path: str = ".") -> str:
        """List the files under a folder."""
        return path

    log = ToolDefinition(name="git_log", description="The latest commits", parameters={})
    asked = "Who wrote the last commit, and what files are in src/weatherly?"
    made = ToolCall(id="c1", name="git_log", arguments={"path": "tests/src/weatherly/x.py"})

    def after(found: str, failed: bool = False) -> Grounding:
        conversation = _answered(asked, made, found, failed=failed)
        return Grounding.of(conversation, [log, list_files.definition])

    listing = {"path": "src/weatherly"}
    assert after("[]").takes_up_part("list_files", listing)
    assert after("no commits", failed=True).takes_up_part("list_files", listing)
    # Found, the log's made-up path holds "weatherly": a listing of it says the log again.
    assert not after('[{"hash": "a41f9c2"}]').takes_up_part("list_files", listing)
    # Words naming a tool say which tool, not what with.
    assert not after("[]").takes_up_part("list_files", {"path": "files"})


def test_an_example_of_the_documentation_nobody_wrote_is_a_copy_not_a_value() -> None:
    @tool(side_effect="read_only")
    def current_time(timezone: str = "UTC") -> str:
        """The current date, time and weekday in a time zone.

        Args:
            timezone: an IANA time zone such as "Europe/Paris", "Asia/Tokyo" or "UTC"
        """
        return timezone

    @tool(side_effect="read_only")
    def list_files(path: str, pattern: str = "*", order: Literal["name", "size"] = "name") -> str:
        """List files.

        Args:
            path: the folder
            pattern: only file names matching this glob, e.g. "*.py", sorted by `order`
            order: how to sort them, e.g. "size"
        """
        return path

    tools = [current_time.definition, list_files.definition]

    def copied(request: str, tool: str, arguments: dict[str, Any]) -> list[str]:
        return Grounding.of([Message.user(request)], tools).copied_examples(tool, arguments)

    mumbai = "what time is it in Mumbai"
    assert copied(mumbai, "current_time", {"timezone": "Asia/Tokyo"}) == ["timezone"]
    assert (
        Grounding.of([Message.user(mumbai)], tools).missing(
            "current_time", {"timezone": "Asia/Tokyo"}
        )
        == "timezone"
    )
    # A word of it written, or begun, is the user's value or the model's knowledge of it.
    assert copied("what time is it in tokyo", "current_time", {"timezone": "Asia/Tokyo"}) == []
    assert copied("list the python files in src", "list_files", {"pattern": "*.py"}) == []
    # The default is the tool's own choice where the request names nothing it leaves out (see
    # below); a value not among the examples is the model's; an `enum`'s options are choices,
    # not examples.
    assert copied("what time is it now", "current_time", {"timezone": "UTC"}) == []
    assert copied(mumbai, "current_time", {"timezone": "Asia/Kolkata"}) == []
    assert copied("list src", "list_files", {"path": "src", "order": "size"}) == []
    markdown = {"path": "src", "pattern": "*.py"}
    assert copied("list the markdown files in src", "list_files", markdown) == ["pattern"]
    # Where the call places every word of the request, the example is the model's choice of
    # form: nothing of the user's was left out for it.
    assert copied("list src", "list_files", markdown) == []
    # A parameter's name quoted in a description points at it: no example.
    ordered = {"path": "src", "pattern": "order"}
    assert copied("list the markdown files in src", "list_files", ordered) == []
    # A call that changes something keeps its example: written again from the request's words,
    # an optional value nobody gave would be junk.
    changing = [dataclasses.replace(current_time.definition, side_effect="destructive")]
    booked = Grounding.of([Message.user(mumbai)], changing)
    assert booked.copied_examples("current_time", {"timezone": "Asia/Tokyo"}) == []


def test_a_default_passed_where_the_request_names_something_left_out_is_copied() -> None:
    @tool(side_effect="read_only")
    def current_time(timezone: str = "UTC", style: Literal["short", "long"] = "short") -> str:
        """The current time.

        Args:
            timezone: an IANA time zone such as "Asia/Tokyo" (a city name also works)
            style: how to write it
        """
        return timezone

    tools = [current_time.definition]

    def copied(request: str, arguments: dict[str, Any]) -> list[str]:
        return Grounding.of([Message.user(request)], tools).copied_examples(
            "current_time", arguments
        )

    auckland = "what day of the week is it in Auckland right now?"
    assert copied(auckland, {"timezone": "UTC"}) == ["timezone"]
    assert copied("Our team is in Dubai. What time is it there?", {"timezone": "UTC"}) == [
        "timezone"
    ]
    # A word that opens a sentence is no name, nor one the call holds; a word the request
    # writes that is no name says nothing the default leaves out.
    assert copied("What time is it right now?", {"timezone": "UTC"}) == []
    assert copied("What time is it in UTC?", {"timezone": "UTC"}) == []
    assert copied("what time is it in auckland right now?", {"timezone": "UTC"}) == []
    # A call that asks something else chose its default; an enum's default is a choice.
    assert copied(auckland, {"timezone": "UTC", "style": "long"}) == []
    assert copied(auckland, {"style": "short"}) == []


def test_a_call_handing_its_tool_back_what_it_returned_asks_nothing_new() -> None:
    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    made = ToolCall(id="c1", name="current_time", arguments={"timezone": "Mumbai"})
    answered = _answered("what time is it in Mumbai", made, "10:24 in Asia/Kolkata (IST)")
    grounding = Grounding.of(answered, [clock])
    assert grounding.asks_nothing_new("current_time", {"timezone": "Asia/Kolkata"})
    assert not grounding.asks_nothing_new("current_time", {"timezone": "Asia/Calcutta"})
    # An error's suggestion is a step on; text the request holds is asked of the request.
    wrong = dataclasses.replace(made, arguments={"timezone": "Asia/Mumbai"})
    suggested = "unknown time zone 'Asia/Mumbai'; did you mean Asia/Kolkata?"
    failed = Grounding.of(_answered("time in Mumbai", wrong, suggested, failed=True), [clock])
    assert not failed.asks_nothing_new("current_time", {"timezone": "Asia/Kolkata"})
    log = ToolDefinition(name="git_log", description="commits", parameters={})
    first = ToolCall(id="c1", name="git_log", arguments={})
    found = '[{"author": "Maya Lin"}, {"author": "Jun Park"}]'
    maya = Grounding.of(_answered("Show me Maya Lin's last 2 commits", first, found), [log])
    assert not maya.asks_nothing_new("git_log", {"author": "Maya Lin"})
    assert maya.asks_nothing_new("git_log", {"author": "Jun Park"})


def test_a_follow_up_naming_a_day_asks_the_same_tool_for_that_days_date() -> None:
    @tool(side_effect="read_only")
    def list_events(date: str) -> str:
        """The events of one day."""
        return date

    today = Message.system("Today is Tuesday 2026-03-10.")
    looked = ToolCall(id="c1", name="list_events", arguments={"date": "2026-03-10"})
    conversation = [
        today,
        *_answered("what's on my calendar today?", looked, '[{"title": "Standup"}]'),
        Message.assistant("Standup at 09:30."),
    ]

    def follows(follow_up: str, day: str) -> bool:
        grounding = Grounding.of([*conversation, Message.user(follow_up)], [list_events.definition])
        return grounding.follows_up("list_events", {"date": day})

    assert follows("and tomorrow?", "2026-03-11")
    assert follows("and on Friday?", "2026-03-13")
    assert not follows("and tomorrow?", "2026-03-12")
    assert not follows("and tomorrow?", "2026-03-10")


def test_a_follow_up_call_may_act_on_what_the_results_found() -> None:
    @tool(side_effect="read_only")
    def search_orders(customer: str) -> str:
        """Find a customer's orders."""
        return ""

    @tool(side_effect="idempotent")
    def update_shipping_address(order_id: str, address: str) -> str:
        """Change where an order ships."""
        return ""

    tools = [search_orders.definition, update_shipping_address.definition]
    search = ToolCall(id="c1", name="search_orders", arguments={"customer": "Maria Gonzalez"})
    found = '[{"order_id": "ORD-10522", "status": "pending"}]'
    conversation = [
        *_answered("Find Maria Gonzalez's pending order", search, found),
        Message.assistant("ORD-10522 is pending."),
    ]

    def follows(follow_up: str, arguments: dict[str, Any]) -> bool:
        grounding = Grounding.of([*conversation, Message.user(follow_up)], tools)
        return grounding.follows_up("update_shipping_address", arguments)

    move = "change its shipping address to 12 Lake Rd, Austin"
    new_address = {"order_id": "ORD-10522", "address": "12 Lake Rd, Austin"}
    assert follows(move, new_address)
    # Nothing found, a value nobody gave, or a tool the request does not name: no follow-up.
    assert not follows(move, {"address": "12 Lake Rd, Austin"})
    assert not follows(move, {**new_address, "order_id": "ORD-10999"})
    assert not follows("thanks, and when does it arrive?", new_address)


def test_a_first_look_up_may_use_a_tool_the_request_names_for_what_it_says() -> None:
    @tool(side_effect="read_only")
    def search_notes(query: str, limit: int = 3) -> str:
        """Search toolwire's notes."""
        return ""

    @tool(side_effect="destructive")
    def delete_note(title: str) -> str:
        """Delete a note."""
        return ""

    tools = [search_notes.definition, delete_note.definition]

    def looks_up(request: str, tool_name: str, arguments: dict[str, Any]) -> bool:
        return Grounding.of([Message.user(request)], tools).follows_up(tool_name, arguments)

    strict = "what does strict mode do? check the notes"
    assert looks_up(strict, "search_notes", {"query": "strict mode"})
    # A value nobody gave, only the words naming the tool, nothing asked but defaults, a tool
    # the request does not name, or one that changes something: no look-up.
    assert not looks_up(strict, "search_notes", {"query": "timeouts"})
    assert not looks_up(strict, "search_notes", {"query": "notes"})
    assert not looks_up(strict, "search_notes", {"query": "strict mode", "limit": 5})
    assert not looks_up("what does strict mode do?", "search_notes", {"query": "strict mode"})
    assert not looks_up("delete the note on strict mode", "delete_note", {"title": "strict mode"})
    # After a call, a follow-up asks its tools again (see the follow-up test above).
    made = ToolCall(id="c1", name="search_notes", arguments={"query": "limits"})
    conversation = [
        *_answered("what are the limits? check the notes", made, "## Limits"),
        Message.assistant("Steps, time and tokens."),
        Message.user(strict),
    ]
    grounding = Grounding.of(conversation, tools)
    assert grounding.follows_up("search_notes", {"query": "strict mode"})
    assert not grounding.follows_up("delete_note", {"title": "strict mode"})


def test_a_first_look_up_may_read_a_file_the_request_names() -> None:
    @tool(side_effect="read_only")
    def read_file(path: str, max_lines: int = 200) -> str:
        """Read a text file."""
        return ""

    @tool(side_effect="read_only")
    def git_log(path: str | None = None) -> str:
        """The latest commits."""
        return ""

    @tool(side_effect="destructive")
    def delete_file(path: str) -> str:
        """Delete a file."""
        return ""

    tools = [read_file.definition, git_log.definition, delete_file.definition]

    def grounding(request: str) -> Grounding:
        return Grounding.of([Message.user(request)], tools)

    version = grounding("what version does pyproject.toml say?")
    assert version.reads_a_file_named("read_file")
    assert version.follows_up("read_file", {"path": "pyproject.toml"})
    # Another file, more than the file, a tool taking no file (required), or one that changes
    # something: no look-up; nor where the request names no file ("e.g.", "3.5").
    assert not version.follows_up("read_file", {"path": "setup.cfg"})
    assert not version.follows_up("read_file", {"path": "pyproject.toml", "max_lines": 5})
    assert not version.reads_a_file_named("git_log")
    assert not version.reads_a_file_named("delete_file")
    assert not grounding("e.g. what is 3.5 times 2?").reads_a_file_named("read_file")
    assert not grounding("delete docs/faq.md").reads_a_file_named("read_file")  # a change
    paths = grounding("compare src/weatherly/cache.py with the tests")
    assert paths.follows_up("read_file", {"path": "src/weatherly/cache.py"})
    # The trial's grammar holds the file to those the request names.
    held = version.held_to_files(read_file.definition).parameters["properties"]["path"]
    assert re.fullmatch(held["pattern"], "pyproject.toml")
    assert not re.fullmatch(held["pattern"], "weatherly/pyproject.toml")
    assert version.held_to_files(git_log.definition) == git_log.definition
    # After other calls too: the file named is read.
    listed = ToolCall(id="c1", name="git_log", arguments={})
    conversation = [
        *_answered("what changed lately?", listed, "[]"),
        Message.assistant("Nothing."),
        Message.user("show me units.py"),
    ]
    after = Grounding.of(conversation, tools)
    assert after.follows_up("read_file", {"path": "units.py"})
    assert not after.follows_up("read_file", {"path": "src/units.py"})


def test_a_first_call_asking_only_defaults_of_a_tool_the_request_is_not_about_is_made_up() -> None:
    @tool(side_effect="read_only")
    def current_time(timezone: str = "UTC") -> str:
        """The current date, time and weekday in a time zone.

        Args:
            timezone: an IANA time zone such as "Europe/Paris"
        """
        return timezone

    @tool(side_effect="read_only")
    def search_notes(query: str) -> str:
        """Search toolwire's notes: how to install and use it."""
        return query

    tools = [current_time.definition, search_notes.definition]

    def made_up(request: str, arguments: dict[str, Any]) -> bool:
        grounding = Grounding.of([Message.user(request)], tools)
        return grounding.made_up("current_time", arguments, [])

    utc = {"timezone": "UTC"}
    assert made_up("Where does toolwire keep its run log?", utc)
    assert made_up("Where does toolwire keep its run log?", {})
    # About the tool ("time", "day" of "weekday" too short to tell, but "date"), about no
    # other tool, or asking a value of its own: the model's to propose.
    assert not made_up("What time is it?", utc)
    assert not made_up("What's today's date in toolwire's notes?", utc)
    assert not made_up("what day is it", utc)
    assert not made_up("Where does toolwire keep its run log?", {"timezone": "Asia/Tokyo"})
    # After results there is no request to be about: the other rules judge those calls.
    made = ToolCall(id="c1", name="search_notes", arguments={"query": "run log"})
    answered = Grounding.of(_answered("Where is toolwire's run log?", made, "In SQLite"), tools)
    assert not answered.made_up("current_time", utc, [])


def test_an_option_nobody_mentioned_becomes_the_one_the_request_names() -> None:
    @tool(side_effect="read_only")
    def search_emails(
        query: str = "", folder: Literal["inbox", "sent", "archive"] = "inbox"
    ) -> str:
        """Search the mailbox.

        Args:
            query: words to find
            folder: which folder to search
        """
        return query

    @tool(side_effect="read_only")
    def convert(
        value: float, source: Literal["C", "F", "K"], target: Literal["C", "F", "K"]
    ) -> str:
        """Convert a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K)."""
        return source

    tools = [search_emails.definition, convert.definition]

    def grounded(request: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return Grounding.of([Message.user(request)], tools).arguments(tool, arguments)

    made = {"query": "Q1 budget", "folder": "inbox"}
    archive = grounded("check my archive for the Q1 budget email", "search_emails", made)
    assert archive == {"query": "Q1 budget", "folder": "archive"}
    assert changes(made, archive) == ("folder='inbox' became 'archive': the request names it",)
    # Two options named: which one is the model's to say.
    assert grounded("is it in sent or in archive?", "search_emails", made) == made
    # An option another value of the call holds is taken; a required one is swapped as well.
    assert grounded("10 C in F", "convert", {"value": 10, "source": "C", "target": "K"}) == {
        "value": 10, "source": "C", "target": "F",
    }  # fmt: skip


def test_a_made_up_identifier_is_looked_up_with_the_tools_that_deal_in_it() -> None:
    def tool_about(name: str, description: str) -> ToolDefinition:
        return ToolDefinition(name=name, description=description, parameters={})

    orders = tool_about("search_orders", "Find a customer's orders.")
    order = tool_about("get_order", "One order's items and status.")
    products = tool_about("search_products", "Find products by name, under a price.")
    grounding = Grounding.of([Message.user("Refund $15 to the customer")], [])
    finders = grounding.finders([orders, order, products], "order_id")
    assert finders == [orders, order]
    # Where no tool deals in it, any may find it.
    assert grounding.finders([products], "order_id") == [products]
    assert grounding.finders([orders, products], "id") == [orders, products]


def test_what_an_identifier_identifies_is_what_its_name_says() -> None:
    assert identified("event_id") == "event"
    assert identified("emailId") == "email"
    assert identified("order_ids") == "order"
    assert identified("id") is None
    assert identified("path") is None


def test_free_text_of_its_tools_name_alone_copies_the_documentation() -> None:
    @tool
    def search_notes(query: str, limit: int = 3) -> str:
        """Search toolwire's notes.

        Args:
            query: what to look for
            limit: at most this many
        """
        return query

    clock = ToolDefinition(name="current_time", description="the time", parameters={})
    asked = "How do I set a timeout in toolwire, and what time is it in UTC?"
    made = ToolCall(id="c1", name="current_time", arguments={"timezone": "UTC"})
    notes = search_notes.definition
    grounding = Grounding.of(_answered(asked, made, "14:25 in UTC"), [clock, notes])
    assert grounding.copied_descriptions("search_notes", {"query": "notes"}) == ["query"]
    assert grounding.copied_descriptions("search_notes", {"query": "search notes"}) == ["query"]
    assert grounding.copied_descriptions("search_notes", {"query": "timeout"}) == []
    # Written by the user, the tool's name is the user's word.
    mine = Grounding.of([Message.user("search my notes for notes")], [notes])
    assert mine.copied_descriptions("search_notes", {"query": "notes"}) == []
    # After results, a look-up is held to the words of the request they answer.
    import re

    held = grounding.in_request_words(notes, ["query"]).parameters["properties"]["query"]
    assert re.fullmatch(held["pattern"], "timeout") and not re.fullmatch(held["pattern"], "notes")


def test_a_follow_up_call_asks_a_tool_again_for_what_the_request_says() -> None:
    @tool
    def current_time(timezone: str) -> str:
        """The time in a time zone."""
        return ""

    @tool
    def convert_units(value: float, from_unit: str, to_unit: str, precision: int = 4) -> str:
        """Convert a quantity."""
        return ""

    clock, converter = current_time.definition, convert_units.definition

    def follows(first: ToolCall, follow_up: str, tool: str, arguments: dict[str, Any]) -> bool:
        result = ToolResult(call_id=first.id, name=first.name, content="done")
        conversation = [
            Message.user("first"),
            Message(role="assistant", parts=(first,)),
            Message(role="tool", parts=(result,)),
            Message.assistant("It is done."),
            Message.user(follow_up),
        ]
        return Grounding.of(conversation, [clock, converter]).follows_up(tool, arguments)

    tokyo = ToolCall(id="c1", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    assert follows(tokyo, "and in London?", "current_time", {"timezone": "Europe/London"})
    # The same call again, or one for what the request does not say, is no follow-up.
    assert not follows(tokyo, "and in London?", "current_time", {"timezone": "Asia/Tokyo"})
    assert not follows(tokyo, "thanks!", "current_time", {"timezone": "UTC"})
    # Only a tool the conversation called is asked again.
    assert not follows(tokyo, "and in London?", "convert_units", {"to_unit": "london"})
    gallons = ToolCall(
        id="c1",
        name="convert_units",
        arguments={"value": 3, "from_unit": "gallons", "to_unit": "liters"},
    )
    cups = {"value": 3, "from_unit": "gallons", "to_unit": "cups", "precision": 4}
    assert follows(gallons, "and in cups?", "convert_units", cups)
    # A value changed that the request does not give is made up.
    made_up = {**cups, "value": 7}
    assert not follows(gallons, "and in cups?", "convert_units", made_up)


def test_an_optional_parameter_that_may_be_null_is_judged_as_the_type_it_takes() -> None:
    # What a Python tool's `X | None = None` becomes: anyOf the type and null, default null.
    @tool
    def search_products(
        query: str = "",
        category: Literal["kettles", "grinders", "accessories"] | None = None,
        max_price: float | None = None,
    ) -> str:
        """Products of the shop.

        Args:
            query: words to find in the product name
            category: only this category
            max_price: only products costing at most this many dollars
        """
        return query

    products = search_products.definition
    made = {"query": "kettles", "category": "accessories", "max_price": 100.0}
    asked = Grounding.of([Message.user("Which kettles do you sell?")], [products])
    assert asked.arguments("search_products", made) == {"query": "kettles"}
    under_40 = Grounding.of([Message.user("Accessories under $40?")], [products])
    assert under_40.arguments("search_products", {"category": "accessories", "max_price": 40}) == {
        "category": "accessories",
        "max_price": 40,
    }


def test_a_required_number_the_request_cannot_have_given_is_missing() -> None:
    @tool
    def convert_units(value: float, from_unit: str, to_unit: str, digits: int = 4) -> str:
        """Convert a quantity.

        Args:
            value: the amount to convert
            from_unit: its unit
            to_unit: the unit wanted
            digits: how many to show
        """
        return ""

    tools = [convert_units.definition]

    def missing(conversation: list[Message], arguments: dict[str, Any]) -> str | None:
        return Grounding.of(conversation, tools).missing("convert_units", arguments)

    made_up = {"value": 17.0, "from_unit": "m", "to_unit": "cm"}
    assert missing([Message.user("convert my height to cm")], made_up) == "value"
    # A request that writes a number may have given it, worked out; so may words for numbers.
    assert missing([Message.user("convert 5 ft 7 in to cm")], made_up) is None
    assert missing([Message.user("convert two meters to cm")], made_up) is None
    # A number the conversation wrote before is given; an optional one is not the user's to give.
    earlier = [Message.user("I am 17 m tall"), Message.assistant("Noted."), Message.user("in cm?")]
    assert missing(earlier, made_up) is None
    assert missing(earlier, {**made_up, "digits": 3}) is None
    # After results, the request they answer is the one that has to give it.
    call = ToolCall(id="c1", name="convert_units", arguments={"value": "height"})
    failed = ToolResult(call_id="c1", name="convert_units", content="not a number", is_error=True)
    conversation = [
        Message.user("convert my height to cm"),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(failed,)),
    ]
    assert missing(conversation, made_up) == "value"


def test_a_required_identifier_the_conversation_never_wrote_is_missing() -> None:
    @tool(side_effect="destructive")
    def cancel_order(order_id: str, reason: str = "") -> str:
        """Cancel an order.

        Args:
            order_id: the order's id, e.g. "ORD-10517"
            reason: why
        """
        return order_id

    tools = [cancel_order.definition]

    def missing(conversation: list[Message], order_id: str) -> str | None:
        grounding = Grounding.of(conversation, tools)
        return grounding.missing("cancel_order", {"order_id": order_id, "reason": "asked"})

    assert missing([Message.user("Cancel the order please")], "ORD-10517") == "order_id"
    assert missing([Message.user("Cancel the order please")], "ORD-1") == "order_id"
    # Written whole, or its digits ("order 10517"), it is the user's (the tool judges it).
    assert missing([Message.user("Cancel the order please")], "order") is None
    assert missing([Message.user("cancel ord-10517")], "ORD-10517") is None
    assert missing([Message.user("cancel order 10517")], "ORD-10517") is None
    # So is one a result holds: an order found.
    call = ToolCall(id="c1", name="search_orders", arguments={"customer": "Kai"})
    found = ToolResult(call_id="c1", name="search_orders", content='[{"order_id": "ORD-10522"}]')
    conversation = [
        Message.user("Cancel Kai's order"),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(found,)),
    ]
    assert missing(conversation, "ORD-10522") is None
    assert missing(conversation, "ORD-10517") == "order_id"
    grounding = Grounding.of(conversation, tools)
    assert grounding.findable("cancel_order", "order_id")
    assert not grounding.findable("cancel_order", "reason")


def test_a_required_path_the_conversation_never_wrote_is_missing() -> None:
    @tool(side_effect="read_only")
    def read_file(path: str, max_lines: int = 200) -> str:
        """Read a text file.

        Args:
            path: the file, relative to the repository root
            max_lines: at most this many lines
        """
        return path

    @tool(side_effect="idempotent")
    def write_file(file_name: str, content: str) -> str:
        """Write a text file."""
        return file_name

    @tool(side_effect="read_only")
    def grep(pattern: str, path: str = ".") -> str:
        """Lines matching a pattern, under a folder."""
        return pattern

    tools = [read_file.definition, write_file.definition, grep.definition]
    system = Message.system("You help a developer in the repository of a weather API.")

    def missing(request: str, tool: str, arguments: dict[str, Any]) -> str | None:
        return Grounding.of([system, Message.user(request)], tools).missing(tool, arguments)

    # "weather" is in the system message, not in the request: no file the user named.
    assert missing("read the file", "read_file", {"path": "weatherly/weather.txt"}) == "path"
    # "the file" says which tool, not which file.
    assert missing("read the file", "read_file", {"path": "file.txt"}) == "path"
    assert missing("save 'hi' in a new file", "write_file", {"file_name": "notes.txt"}) == (
        "file_name"
    )
    # The path whole, the file's name, or that name less its extension as a word of the request.
    assert missing("read src/app/cache.py", "read_file", {"path": "src/app/cache.py"}) is None
    assert missing("what does cache.py do?", "read_file", {"path": "src/app/cache.py"}) is None
    assert missing("Show me the changelog", "read_file", {"path": "CHANGELOG.md"}) is None
    assert missing("Show me the changelog", "read_file", {"path": "docs/NEWS.md"}) == "path"
    # An optional path keeps its default otherwise (see the optional parameters' checks).
    assert missing("grep for TODO", "grep", {"pattern": "TODO", "path": "src/app"}) is None
    # One a result holds is the user's too: a file found.
    call = ToolCall(id="c1", name="grep", arguments={"pattern": "TTL"})
    found = ToolResult(call_id="c1", name="grep", content='["src/app/cache.py:10: TTL = 600"]')
    conversation = [
        system,
        Message.user("open the file that sets the TTL"),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(found,)),
    ]
    grounding = Grounding.of(conversation, tools)
    assert grounding.missing("read_file", {"path": "src/app/cache.py"}) is None
    assert grounding.missing("read_file", {"path": "src/app/settings.py"}) == "path"
    # A file to read may be looked up first; where to write a new one may not.
    assert grounding.findable("read_file", "path")
    assert not grounding.findable("write_file", "file_name")


def test_an_email_address_the_conversation_never_wrote_is_missing() -> None:
    @tool(side_effect="destructive")
    def send_email(to: list[str], subject: str, body: str, cc: list[str] | None = None) -> str:
        """Send an email.

        Args:
            to: the recipients' email addresses
            subject: the subject line
            body: the text
            cc: addresses to copy
        """
        return subject

    tools = [send_email.definition]
    system = Message.system("You are Sam Rivera's assistant (sam.rivera@lumenlabs.com).")
    sent = {"subject": "Lunch", "body": "Lunch on Friday?"}

    def missing(conversation: list[Message], to: list[str]) -> str | None:
        return Grounding.of([system, *conversation], tools).missing(
            "send_email", {**sent, "to": to}
        )

    ask_lena = [Message.user("email Lena about lunch on Friday")]
    assert missing(ask_lena, ["lena@example.com"]) == "to"
    assert missing(ask_lena, ["sam.rivera@lumenlabs.com", "lena@example.com"]) == "to"
    # One the user, the application or a result wrote is theirs; a name is no address to judge.
    assert missing([Message.user("email lena@fischer.de about lunch")], ["lena@fischer.de"]) is None
    assert missing(ask_lena, ["sam.rivera@lumenlabs.com"]) is None
    assert missing(ask_lena, ["Lena"]) is None
    call = ToolCall(id="c1", name="search_contacts", arguments={"query": "Lena"})
    found = ToolResult(call_id="c1", name="search_contacts", content='[{"email": "lena@kw.de"}]')
    looked_up = [
        *ask_lena,
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(found,)),
    ]
    assert missing(looked_up, ["lena@kw.de"]) is None
    # The contacts may find it first.
    assert Grounding.of([system, *ask_lena], tools).findable("send_email", "to")


def test_free_text_that_is_its_parameters_description_is_missing() -> None:
    @tool
    def search_code(text: str, file_pattern: str = "*") -> str:
        """Search the repository's files for lines holding a piece of text.

        Args:
            text: the text to find
            file_pattern: which files, e.g. "*.py" or "tests/*"
        """
        return text

    @tool
    def search_notes(query: str) -> str:
        """Search the notes.

        Args:
            query: what to look for, in a few words (e.g. "run log")
        """
        return query

    tools = [search_code.definition, search_notes.definition]

    def missing(request: str, name: str, arguments: dict[str, str]) -> str | None:
        return Grounding.of([Message.user(request)], tools).missing(name, arguments)

    assert missing("search the code", "search_code", {"text": "the text to find"}) == "text"
    assert missing("search the code", "search_code", {"text": "The text to find."}) == "text"
    assert missing("search the code for TTL", "search_code", {"text": "TTL"}) is None
    # The description up to its examples, or whole, is no value; a piece of it can be.
    asked = "How do I write a tool?"
    assert missing(asked, "search_notes", {"query": "what to look for, in a few words"}) == "query"
    described = 'what to look for, in a few words (e.g. "run log")'
    assert missing(asked, "search_notes", {"query": described}) == "query"
    assert missing(asked, "search_notes", {"query": "what to look for"}) is None
    # Written by the user, it is the user's.
    assert missing("find 'the text to find'", "search_code", {"text": "the text to find"}) is None
    # An optional parameter is not the user's to give.
    assert missing("search the code", "search_code", {"text": "x", "file_pattern": "*.py"}) is None


def test_a_look_up_on_trial_is_held_to_the_requests_words() -> None:
    import re

    from toolwire.models.local._formats import HERMES
    from toolwire.models.local._grammar import calls_grammar

    @tool
    def search_notes(query: str, limit: int = 3) -> str:
        """Search the notes.

        Args:
            query: what to look for, in a few words
            limit: at most this many
        """
        return query

    conversation = [Message.user("What's the way to write a tool in toolwire's cache.py?")]
    worded = Grounding.of(conversation, [search_notes.definition]).in_request_words(
        search_notes.definition, ["query"]
    )
    properties = worded.parameters["properties"]
    pattern = re.compile(properties["query"]["pattern"])
    assert pattern.fullmatch("write a tool") and pattern.fullmatch("cache.py")
    assert not pattern.fullmatch("what to look for, in a few words")
    assert not pattern.fullmatch("a tool for cache.py")  # "for" is no word of the request
    # "What" says nothing of what is asked: a query opening with it would search for it.
    assert not pattern.fullmatch("What toolwire") and pattern.fullmatch("the way")
    assert "pattern" not in properties["limit"]
    assert worded.name == "search_notes" and worded.description == "Search the notes."
    # llama.cpp's converter takes the pattern into the call grammar.
    grammar = calls_grammar(HERMES, [worded], strict=True, parallel=False)
    assert "toolwir" in grammar and "in a few words" not in grammar
    # Nothing to hold it to: the tool as it is.
    definition = search_notes.definition
    bare = Grounding.of([Message.user("???")], [definition])
    assert bare.in_request_words(definition, ["query"]) is definition

    @tool
    def run_tests(keyword: str | None = None) -> str:
        """Run the tests.

        Args:
            keyword: only tests whose name contains this text
        """
        return ""

    # An optional value (a string or null) is held to a string of the words: a grammar given
    # the choice of null never reads the pattern.
    optional = run_tests.definition
    held = Grounding.of([Message.user("run the cache tests")], [optional]).in_request_words(
        optional, ["keyword"]
    )
    keyword = held.parameters["properties"]["keyword"]
    assert keyword["type"] == "string" and "anyOf" not in keyword and "default" not in keyword
    grammar = calls_grammar(HERMES, [held], strict=True, parallel=False)
    assert "cach" in grammar and "null" not in grammar


@given(
    st.dictionaries(
        st.sampled_from(["timezone", "value", "unit"]),
        st.one_of(
            st.text(max_size=12),
            st.integers(),
            st.floats(allow_nan=False),
            st.none(),
            st.lists(st.text(max_size=8) | st.integers(), max_size=3),
        ),
    ),
    st.text(max_size=40),
)
@example(arguments={"timezone": "AAAA", "value": []}, said="AAAA")
def test_the_trials_keep_only_what_the_request_gives(arguments: dict[str, Any], said: str) -> None:
    @tool
    def measure(timezone: str, value: float, unit: str = "m") -> str:
        """Something to ask again."""
        return ""

    earlier = ToolCall(id="c1", name="measure", arguments={"timezone": "Asia/Tokyo", "value": 3})
    conversation = [
        Message.user("first"),
        Message(role="assistant", parts=(earlier,)),
        Message(role="tool", parts=(ToolResult(call_id="c1", name="measure", content="done"),)),
        Message.user(said),
    ]
    grounding = Grounding.of(conversation, [measure.definition])
    said_words = {word.lower() for word in re.findall(r"[^\W\d_]{4,}", said)}
    if grounding.follows_up("measure", arguments):
        changed = [v for k, v in arguments.items() if earlier.arguments.get(k) != v]
        assert changed
        for value in changed:
            text = str(value).lower()
            assert any(word in text for word in said_words) or re.search(r"\d", said)
    missing = grounding.missing("measure", arguments)
    if missing is not None:
        assert missing == "value" and not re.search(r"\d", said)
        assert isinstance(arguments["value"], int | float) and arguments["value"] != 3


ORDERS = ToolDefinition(
    name="search_orders",
    description="Find a shop's orders.",
    parameters={
        "type": "object",
        "properties": {
            "customer": {"type": "string"},
            "placed_after": {"type": "string", "description": "ISO date"},
            "placed_before": {"type": "string", "description": "ISO date"},
        },
        "required": ["placed_before"],
    },
)
SHOP_TODAY = Message.system("You serve a coffee shop. Today is 2026-03-10.")


def test_a_date_filter_nobody_asked_for_is_left_out() -> None:
    made = {"customer": "Lucy Chen", "placed_after": "2026-03-10", "placed_before": "2026-03-10"}
    undated = Grounding.of([SHOP_TODAY, Message.user("Show me Lucy Chen's orders")], [ORDERS])
    # The system message's date is the application's; the required date is the model's to get.
    assert undated.arguments("search_orders", made) == {
        "customer": "Lucy Chen",
        "placed_before": "2026-03-10",
    }
    for asked in ("Lucy Chen's orders since Monday", "her orders from March", "orders after 3/1"):
        dated = Grounding.of([SHOP_TODAY, Message.user(asked)], [ORDERS])
        assert dated.arguments("search_orders", made) == made


def test_after_results_a_call_that_changes_something_nobody_asked_for_is_found() -> None:
    listing = ToolDefinition(
        name="list_events", description="events", parameters={}, side_effect="read_only"
    )
    creating = ToolDefinition(name="create_event", description="a new event", parameters={})
    looked = ToolCall(id="c1", name="list_events", arguments={"date": "2026-03-17"})
    found = '[{"title": "Quarterly review with Lena", "date": "2026-03-17"}]'

    def after(request: str) -> Grounding:
        return Grounding.of(
            [
                Message.user(request),
                Message(role="assistant", parts=(looked,)),
                Message(
                    role="tool",
                    parts=(ToolResult(call_id="c1", name="list_events", content=found),),
                ),
            ],
            [listing, creating],
        )

    copied = {"title": "Quarterly review with Lena", "date": "2026-03-17"}
    assert after("What's on my schedule for next Tuesday?").asks_nothing_new("create_event", copied)
    # Asked for by name, or with what the request says, or changing nothing: a step on.
    assert not after("Create an event like it").asks_nothing_new("create_event", copied)
    booked = {"title": "Lunch with Lena", "date": "2026-03-17"}
    assert not after("Find a free day and book lunch with Lena").asks_nothing_new(
        "create_event", booked
    )
    assert not after("What's on next Tuesday?").asks_nothing_new(
        "list_events", {"date": "2026-03-18"}
    )


def test_a_look_up_that_found_nothing_for_several_words_is_asked_again_with_fewer() -> None:
    @tool(side_effect="read_only")
    def search_contacts(query: str, limit: int = 10) -> str:
        """Find people in the address book.

        Args:
            query: a name or part of one
            limit: at most this many
        """
        return ""

    @tool(side_effect="idempotent")
    def run_tests(keyword: str | None = None) -> str:
        """Run the tests.

        Args:
            keyword: only tests whose name contains this text
        """
        return ""

    @tool(side_effect="destructive")
    def delete_contacts(query: str) -> str:
        """Delete the people matching a query.

        Args:
            query: a name or part of one
        """
        return ""

    tools = [search_contacts.definition, run_tests.definition, delete_contacts.definition]

    def fewer(call: ToolCall, found: str = "[]", failed: bool = False) -> list[ToolDefinition]:
        conversation = _answered("is chloe in my contacts?", call, found, failed=failed)
        return Grounding.of(conversation, tools).fewer_words(tools)

    chloe = ToolCall(
        id="c1", name="search_contacts", arguments={"query": "Chloe, candidate's portfolio"}
    )
    (narrower,) = fewer(chloe)
    query = narrower.parameters["properties"]["query"]
    pattern = re.compile(query["pattern"])
    assert pattern.fullmatch("Chloe") and pattern.fullmatch("candidate portfolio")
    assert not pattern.fullmatch("Chloe portfolio")  # a run, in the order written
    assert not pattern.fullmatch("Marco")
    # A possessive is held to the word alone, which finds whatever it finds: so all the words
    # may be asked again, and one word alone.
    assert not pattern.fullmatch("candidate's portfolio")
    assert pattern.fullmatch("Chloe candidate portfolio")
    plain = dataclasses.replace(chloe, arguments={"query": "Chloe, the portfolio"})
    (fewer_only,) = fewer(plain)
    # Without one, all of them found nothing.
    assert not re.fullmatch(
        fewer_only.parameters["properties"]["query"]["pattern"], "Chloe portfolio"
    )
    tom = ToolCall(id="c1", name="search_contacts", arguments={"query": "Tom’s budget review"})
    (again,) = fewer(tom)
    assert re.fullmatch(again.parameters["properties"]["query"]["pattern"], "Tom budget review")
    (alone,) = fewer(dataclasses.replace(tom, arguments={"query": "Tom's"}))
    assert re.fullmatch(alone.parameters["properties"]["query"]["pattern"], "Tom")
    assert narrower.parameters["properties"]["limit"] == {
        "default": 10,
        "description": "at most this many",
        "type": "integer",
    }
    # A failure (here a tool safe to repeat) counts as nothing found; an optional value is
    # held to a string, the grammar reading its pattern.
    cache = ToolCall(id="c1", name="run_tests", arguments={"keyword": "cache tests"})
    (tests,) = fewer(cache, "no tests collected for 'cache tests'", failed=True)
    keyword = tests.parameters["properties"]["keyword"]
    assert keyword["type"] == "string" and "anyOf" not in keyword
    assert re.fullmatch(keyword["pattern"], "cache")
    # Found something, one word, or a tool that changes something: nothing to ask again.
    assert fewer(chloe, '[{"name": "Chloe Martin"}]') == []
    for one_word in ["Chloe", "src/weatherly/cache.py", "what Chloe"]:
        alone = ToolCall(id="c1", name="search_contacts", arguments={"query": one_word})
        assert fewer(alone) == []
    assert fewer(dataclasses.replace(chloe, name="delete_contacts")) == []
    # Asked again once: fewer words that found nothing are the answer.
    narrowed = ToolCall(id="c2", name="search_contacts", arguments={"query": "Chloe"})
    twice = [
        *_answered("is chloe in my contacts?", chloe, "[]"),
        Message(role="assistant", parts=(narrowed,)),
        Message(role="tool", parts=(ToolResult(call_id="c2", name=narrowed.name, content="[]"),)),
    ]
    assert Grounding.of(twice, tools).fewer_words(tools) == []
    # A new request has no results to narrow.
    assert Grounding.of([Message.user("is chloe here?")], tools).fewer_words(tools) == []


def test_a_call_for_one_item_of_a_list_leaves_the_others_held_to_a_call_on_trial() -> None:
    @tool(side_effect="read_only")
    def current_time(timezone: str = "UTC", format: str = "long") -> str:
        """The current time in a timezone.

        Args:
            timezone: a city or an IANA name
            format: how to write it
        """
        return ""

    @tool(side_effect="destructive")
    def cancel_order(order_id: str) -> str:
        """Cancel an order.

        Args:
            order_id: the order
        """
        return ""

    tools = [current_time.definition, cancel_order.definition]
    cities = "Our team is split between Dubai and São Paulo. What time is it in each city?"

    def listed(question: str, *calls: tuple[ToolCall, str]) -> list[ToolDefinition]:
        conversation = [Message.user(question)]
        for call, found in calls:
            result = ToolResult(call_id=call.id, name=call.name, content=found)
            conversation += [
                Message(role="assistant", parts=(call,)),
                Message(role="tool", parts=(result,)),
            ]
        return Grounding.of(conversation, tools).listed_left(question, tools)

    sao_paulo = ToolCall(id="c1", name="current_time", arguments={"timezone": "São Paulo"})
    (held,) = listed(cities, (sao_paulo, "11:25 in America/Sao_Paulo"))
    properties = held.parameters["properties"]
    assert re.fullmatch(properties["timezone"]["pattern"], "Dubai")
    assert not re.fullmatch(properties["timezone"]["pattern"], "São Paulo")
    assert "pattern" not in properties["format"]
    # Each item asked, one found nothing, the value no item, or a tool that destroys: none.
    dubai = ToolCall(id="c2", name="current_time", arguments={"timezone": "dubai"})
    assert listed(cities, (sao_paulo, "11:25"), (dubai, "18:25")) == []
    assert listed(cities, (sao_paulo, "")) == []
    assert listed("What time is it in São Paulo?", (sao_paulo, "11:25")) == []
    orders = "Cancel ORD-1 and ORD-2"
    cancel = ToolCall(id="c1", name="cancel_order", arguments={"order_id": "ORD-1"})
    assert listed(orders, (cancel, "cancelled")) == []


def _answered(
    question: str, call: ToolCall, found: str = "done", *, failed: bool = False
) -> list[Message]:
    """A conversation asking `question`, answered by `call`, which returned `found`."""
    result = ToolResult(call_id=call.id, name=call.name, content=found, is_error=failed)
    return [
        Message.user(question),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(result,)),
    ]
