"""A calendar and email assistant for one person, Sam Rivera, over fixed in-memory data.

Today is Tuesday 2026-03-10 (INSTRUCTIONS says so to the model, as an application would). The
module is self-contained, so `toolwire run "..." --tools bench/requests/toolsets/assistant.py`
works too; `reset()` restores the fixed data (events created or cancelled, emails sent).
"""

from __future__ import annotations

import copy
import datetime
from typing import Any, Literal

from toolwire import ToolError, tool

TODAY = "2026-03-10"
INSTRUCTIONS = (
    "You are the personal assistant of Sam Rivera (sam.rivera@lumenlabs.com) at Lumen Labs. "
    "Today is Tuesday 2026-03-10; times are local (Europe/Berlin)."
)

_CONTACTS = [
    ("Dana Whitfield", "dana.whitfield@northwind.io", "+1 415 555 0142", "Northwind", "Head of Product"),
    ("Marco Rossi", "marco.rossi@lumenlabs.com", "+39 02 5550 1187", "Lumen Labs", "Backend engineer"),
    ("Priya Natarajan", "priya.n@lumenlabs.com", "+1 646 555 0199", "Lumen Labs", "Design lead"),
    ("Lena Fischer", "lena.fischer@kraftwerk-partners.de", "+49 30 5550 7721", "Kraftwerk Partners", "Consultant"),
    ("Tom Okafor", "tom.okafor@lumenlabs.com", "+44 20 5550 3311", "Lumen Labs", "CFO"),
    ("Aisha Khan", "aisha@khanlegal.com", "+1 312 555 0178", "Khan Legal", "Lawyer"),
    ("Ben Carter", "ben.carter@gmail.com", "+1 503 555 0110", "", "Friend"),
    ("Chloe Martin", "chloe.martin@lumenlabs.com", "+33 1 55 50 22 90", "Lumen Labs", "Recruiter"),
    ("Jonas Berg", "jonas@bergbikes.se", "+46 8 555 0134", "Berg Bikes", "Supplier"),
]  # fmt: skip

_EVENTS = [
    ("evt_201", "2026-03-09", "10:00", "10:30", "Weekly planning", ["marco.rossi@lumenlabs.com", "priya.n@lumenlabs.com", "tom.okafor@lumenlabs.com"], "Room Orion"),
    ("evt_202", "2026-03-10", "09:30", "10:00", "Standup", ["marco.rossi@lumenlabs.com", "priya.n@lumenlabs.com"], "Zoom"),
    ("evt_203", "2026-03-10", "13:00", "14:00", "Lunch with Ben", ["ben.carter@gmail.com"], "Café Lotte"),
    ("evt_204", "2026-03-10", "16:00", "17:00", "Budget review", ["tom.okafor@lumenlabs.com"], "Room Vega"),
    ("evt_205", "2026-03-11", "09:30", "10:00", "Standup", ["marco.rossi@lumenlabs.com", "priya.n@lumenlabs.com"], "Zoom"),
    ("evt_206", "2026-03-11", "11:00", "12:00", "Product sync with Northwind", ["dana.whitfield@northwind.io"], "Zoom"),
    ("evt_207", "2026-03-11", "15:00", "15:45", "Interview: backend candidate", ["chloe.martin@lumenlabs.com"], "Room Orion"),
    ("evt_208", "2026-03-12", "09:30", "10:00", "Standup", ["marco.rossi@lumenlabs.com", "priya.n@lumenlabs.com"], "Zoom"),
    ("evt_209", "2026-03-12", "14:00", "15:30", "Design review", ["priya.n@lumenlabs.com", "marco.rossi@lumenlabs.com"], "Room Vega"),
    ("evt_210", "2026-03-12", "18:30", "19:30", "Dentist", [], "Dr. Weiss, Torstraße 12"),
    ("evt_211", "2026-03-13", "10:00", "10:30", "1:1 with Marco", ["marco.rossi@lumenlabs.com"], "Zoom"),
    ("evt_212", "2026-03-13", "12:00", "13:00", "Contract call with Aisha", ["aisha@khanlegal.com"], "Phone"),
    ("evt_213", "2026-03-16", "10:00", "10:30", "Weekly planning", ["marco.rossi@lumenlabs.com", "priya.n@lumenlabs.com", "tom.okafor@lumenlabs.com"], "Room Orion"),
    ("evt_214", "2026-03-17", "15:00", "16:00", "Quarterly review with Lena", ["lena.fischer@kraftwerk-partners.de"], "Kraftwerk Partners office"),
    ("evt_215", "2026-03-19", "07:15", "10:05", "Flight to Lisbon (TP 541)", [], "BER Terminal 1"),
]  # fmt: skip

_EMAILS = [
    ("msg_301", "inbox", "Dana Whitfield <dana.whitfield@northwind.io>", "2026-03-10 08:12", True,
     "Agenda for Wednesday's product sync",
     "Hi Sam, for tomorrow's sync I'd like to cover three things: the pricing page, API rate "
     "limits, and the Q2 launch date. Could you bring the February usage numbers? Dana"),
    ("msg_302", "inbox", "Tom Okafor <tom.okafor@lumenlabs.com>", "2026-03-10 07:45", True,
     "Budget review moved?",
     "Could we push today's budget review from 16:00 to 16:30? I'm stuck in another meeting "
     "until then. Tom"),
    ("msg_303", "inbox", "Priya Natarajan <priya.n@lumenlabs.com>", "2026-03-09 17:20", False,
     "Design review deck",
     "The deck for Thursday's design review is in the shared drive (24 slides). Comments "
     "welcome before Wednesday noon."),
    ("msg_304", "inbox", "Jonas Berg <jonas@bergbikes.se>", "2026-03-09 14:02", True,
     "Invoice #4471",
     "Attached is invoice #4471 for the 12 cargo bikes: EUR 18,960, due 2026-03-31."),
    ("msg_305", "inbox", "Ben Carter <ben.carter@gmail.com>", "2026-03-08 10:30", False,
     "Lunch Tuesday?", "Still on for Café Lotte at 1pm on Tuesday? Ben"),
    ("msg_306", "inbox", "Aisha Khan <aisha@khanlegal.com>", "2026-03-06 16:45", False,
     "Contract draft v3",
     "Attached is v3 of the Northwind contract. The main change is the termination clause "
     "(section 9): the notice period is now 60 days."),
    ("msg_307", "inbox", "Chloe Martin <chloe.martin@lumenlabs.com>", "2026-03-05 09:00", False,
     "Candidate CV",
     "Here is the CV of the backend candidate, Alex Moreau, for Wednesday 15:00."),
    ("msg_308", "inbox", "Dev Weekly <newsletter@devweekly.io>", "2026-03-10 06:30", True,
     "Dev Weekly #212", "This week: SQLite tricks, Rust 2026 edition, and a CSS grid primer."),
    ("msg_401", "sent", "Sam Rivera <sam.rivera@lumenlabs.com>", "2026-03-09 18:00", False,
     "Re: 1:1 topics",
     "To Marco: let's talk about the on-call rotation and your promotion case on Friday."),
    ("msg_402", "sent", "Sam Rivera <sam.rivera@lumenlabs.com>", "2026-03-06 11:15", False,
     "Quarterly review date", "To Lena: Tuesday 17 March at 15:00 works for me."),
    ("msg_501", "archive", "Tom Okafor <tom.okafor@lumenlabs.com>", "2026-02-20 09:10", False,
     "Q1 budget approved", "The Q1 budget of $240,000 is approved. Tom"),
]  # fmt: skip

_state: dict[str, Any] = {}


def reset() -> None:
    """Back to the fixed data: every run of an item starts from the same calendar and mailbox."""
    _state["events"] = {
        e[0]: dict(zip(("id", "date", "start", "end", "title", "attendees", "location"), e, strict=True))
        for e in copy.deepcopy(_EVENTS)
    }  # fmt: skip
    _state["emails"] = {
        m[0]: dict(zip(("id", "folder", "from", "date", "unread", "subject", "body"), m, strict=True))
        for m in _EMAILS
    }  # fmt: skip
    _state["next_event"] = 301
    _state["next_message"] = 9001


reset()


def _date(text: str, name: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"{name} must be a date as YYYY-MM-DD, not {text!r}") from None


def _time(text: str) -> datetime.time:
    try:
        return datetime.time.fromisoformat(text.strip())
    except ValueError:
        raise ToolError(f"start_time must be a 24-hour time as HH:MM, not {text!r}") from None


@tool(side_effect="read_only")
def list_events(date: str, end_date: str | None = None) -> list[dict[str, Any]]:
    """List the calendar events of a day, or of a range of days.

    Args:
        date: the day, as YYYY-MM-DD
        end_date: the last day of a range (inclusive), as YYYY-MM-DD; defaults to `date`
    """
    first = _date(date, "date")
    last = _date(end_date, "end_date") if end_date else first
    if last < first:
        raise ToolError("end_date is before date")
    events = [
        e
        for e in _state["events"].values()
        if first <= datetime.date.fromisoformat(e["date"]) <= last
    ]
    return sorted(events, key=lambda e: (e["date"], e["start"]))


@tool(side_effect="destructive")
def create_event(
    title: str,
    date: str,
    start_time: str,
    duration_minutes: int = 30,
    attendees: list[str] | None = None,
    location: str | None = None,
) -> dict[str, Any]:
    """Create a calendar event and invite its attendees.

    Args:
        title: what the event is
        date: the day, as YYYY-MM-DD
        start_time: when it starts, 24-hour HH:MM local time
        duration_minutes: how long it lasts
        attendees: email addresses of the people to invite
        location: a room, an address or "Zoom"
    """
    day = _date(date, "date")
    start = datetime.datetime.combine(day, _time(start_time))
    if not 5 <= duration_minutes <= 12 * 60:
        raise ToolError("duration_minutes must be between 5 and 720")
    for address in attendees or []:
        if "@" not in address:
            raise ToolError(f"attendees are email addresses, not {address!r}: use search_contacts")
    end = start + datetime.timedelta(minutes=duration_minutes)
    event = {
        "id": f"evt_{_state['next_event']}",
        "date": day.isoformat(),
        "start": start.strftime("%H:%M"),
        "end": end.strftime("%H:%M"),
        "title": title,
        "attendees": list(attendees or []),
        "location": location or "",
    }
    _state["next_event"] += 1
    conflicts = [
        e["title"]
        for e in _state["events"].values()
        if e["date"] == event["date"] and e["start"] < event["end"] and event["start"] < e["end"]
    ]
    _state["events"][event["id"]] = event
    return {**event, "status": "created", "conflicts_with": conflicts}


@tool(side_effect="destructive")
def cancel_event(event_id: str, notify_attendees: bool = True) -> dict[str, Any]:
    """Cancel a calendar event.

    Args:
        event_id: the event's id, e.g. "evt_204" (from list_events)
        notify_attendees: send the attendees a cancellation notice
    """
    event = _state["events"].pop(event_id.strip().lower(), None)
    if event is None:
        raise ToolError(f"no event {event_id!r}: find its id with list_events")
    notified = event["attendees"] if notify_attendees else []
    return {"id": event["id"], "title": event["title"], "status": "cancelled", "notified": notified}


@tool(side_effect="read_only")
def search_contacts(query: str) -> list[dict[str, str]]:
    """Find contacts by name, email address or company.

    Args:
        query: a name, part of a name, an email address or a company
    """
    words = [w.removesuffix("'s") for w in query.lower().replace("\u2019", "'").split()]
    if not words:
        raise ToolError("the query is empty")
    found = []
    for name, email, phone, company, role in _CONTACTS:
        text = f"{name} {email} {company}".lower()
        if all(word in text for word in words):
            found.append(
                {"name": name, "email": email, "phone": phone, "company": company, "role": role}
            )
    return found


@tool(side_effect="read_only")
def search_emails(
    query: str = "",
    folder: Literal["inbox", "sent", "archive"] = "inbox",
    unread_only: bool = False,
    limit: int = 10,
) -> list[dict[str, Any]]:
    """Search the mailbox, newest first. Returns each message's id, sender, date, subject and
    whether it is unread; read_email gives the text.

    Args:
        query: words to find in the sender, subject or text; empty lists everything
        folder: which folder to search
        unread_only: only unread messages
        limit: at most this many messages
    """
    words = query.lower().split()
    found = [
        {k: m[k] for k in ("id", "from", "date", "subject", "unread")}
        for m in _state["emails"].values()
        if m["folder"] == folder
        and (m["unread"] or not unread_only)
        and all(w in f"{m['from']} {m['subject']} {m['body']}".lower() for w in words)
    ]
    return sorted(found, key=lambda m: m["date"], reverse=True)[: max(limit, 0)]


@tool(side_effect="idempotent")
def read_email(email_id: str) -> dict[str, Any]:
    """Open one email (this marks it as read).

    Args:
        email_id: the message's id, e.g. "msg_301" (from search_emails)
    """
    message = _state["emails"].get(email_id.strip().lower())
    if message is None:
        raise ToolError(f"no email {email_id!r}: find its id with search_emails")
    message["unread"] = False
    return {k: v for k, v in message.items() if k != "unread"}


@tool(side_effect="destructive")
def send_email(
    to: list[str], subject: str, body: str, cc: list[str] | None = None
) -> dict[str, Any]:
    """Send an email from Sam's address.

    Args:
        to: the recipients' email addresses
        subject: the subject line
        body: the text of the message
        cc: addresses to copy
    """
    for address in [*to, *(cc or [])]:
        if "@" not in address:
            raise ToolError(f"{address!r} is not an email address: use search_contacts")
    if not to:
        raise ToolError("give at least one recipient")
    message_id = f"msg_{_state['next_message']}"
    _state["next_message"] += 1
    _state["emails"][message_id] = {
        "id": message_id,
        "folder": "sent",
        "from": "Sam Rivera <sam.rivera@lumenlabs.com>",
        "date": f"{TODAY} 12:00",
        "unread": False,
        "subject": subject,
        "body": body,
    }
    return {"id": message_id, "status": "sent", "to": to, "cc": cc or [], "subject": subject}


TOOLS = [
    list_events,
    create_event,
    cancel_event,
    search_contacts,
    search_emails,
    read_email,
    send_email,
]
