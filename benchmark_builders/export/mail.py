"""A world's email as RFC 5322 messages: one mbox file (``mail.mbox``) or one ``.eml`` file per email.

Built with the standard library's ``email`` package. Each message has
From/To/Date/Subject, a ``Message-ID`` made from the email's id, and — for
a reply (an escalation answered, a customer's reply) — ``In-Reply-To`` and
``References`` naming the email its event answered. Internal recipients come
from the sending event; a customer's address from the email's own facts.
``X-Orgbench-Artifact`` keeps the artifact id so a message joins back to the
world. Dates are the world's UTC times, so the bytes depend on the world only.
"""

from __future__ import annotations

import mailbox
from email.charset import QP, Charset
from email.header import Header
from email.message import Message
from email.policy import compat32
from email.utils import format_datetime, formataddr
from pathlib import Path

from benchmark_builders.export.world_index import WorldIndex, put
from simulator.model import ArtifactVersion
from benchmark_builders.export.formats import ExportFormat

CRLF = compat32.clone(linesep="\r\n")
EMAIL_KINDS = ("email", "customer_email", "customer_request", "customer_reply", "escalation_email")


def _address(name: str, email: str) -> str:
    return formataddr((name, email), charset="utf-8")


def _header(text: str) -> str | Header:
    return text if text.isascii() else Header(text, "utf-8")


def _charset() -> Charset:
    charset = Charset("utf-8")
    charset.header_encoding = charset.body_encoding = QP
    return charset


def _message_id(index: WorldIndex, artifact_id: str) -> str:
    return f"<{artifact_id}@{index.domain}>"


def _recipients(index: WorldIndex, version: ArtifactVersion) -> list[str]:
    facts = version.facts
    if "from_external" in facts:                       # inbound: the person who received it
        return [_address(index.name(version.author), index.email(version.author))]
    event = index.citing.get(version.ref)
    internal = [str(a) for a in (event.payload.get("to", []) if event else [])]
    if not internal and not facts.get("to_external"):
        internal = [a for a in (version.acl.audience or ()) if a != version.author]
    out = [_address(index.name(a), index.email(a)) for a in internal]
    if facts.get("to_external"):
        out.append(_address(str(facts.get("contact_name", "")), str(facts["to_external"])))
    return out


def _replied_to(index: WorldIndex, version: ArtifactVersion) -> str | None:
    """The Message-ID of the email the sending event answers (its parent event's email), if any."""
    event = index.citing.get(version.ref)
    if event is None:
        return None
    for link in event.parents:
        parent = index.events.get(link.event_id)
        for ref in parent.artifacts if parent else ():
            artifact_id = ref.rpartition("@")[0]
            history = index.histories.get(artifact_id)
            if history and history[0].subsystem == "email" and artifact_id != version.artifact_id:
                return _message_id(index, artifact_id)
    return None


def message_of(index: WorldIndex, history: list[ArtifactVersion]) -> Message:
    """One email artifact (its latest version) as an email Message (UTF-8, quoted-printable text)."""
    version = history[-1]
    message: Message[str, str | Header] = Message(policy=compat32)
    sender = version.facts.get("from_external")
    if sender:
        message["From"] = _address(str(version.facts.get("contact_name", "")), str(sender))
    else:
        message["From"] = _address(index.name(version.author), index.email(version.author))
    recipients = _recipients(index, version)
    if recipients:
        message["To"] = ", ".join(recipients)
    message["Subject"] = _header(version.title)
    message["Date"] = format_datetime(history[0].created_at)
    message["Message-ID"] = _message_id(index, version.artifact_id)
    parent = _replied_to(index, history[0])
    if parent:
        message["In-Reply-To"] = parent
        message["References"] = parent
    message["X-Orgbench-Artifact"] = version.artifact_id
    message["MIME-Version"] = "1.0"
    message.set_payload(version.body + "\n", _charset())
    return message


def _emails(index: WorldIndex) -> list[list[ArtifactVersion]]:
    return [h for h in index.of_kind(*EMAIL_KINDS) if h[0].subsystem == "email"]


def write_mbox(index: WorldIndex, out: Path) -> dict[str, int]:
    """Write every email into ``out/mail.mbox`` (stdlib mailbox, one ``From `` line per message)."""
    box = mailbox.mbox(str(out / "mail.mbox"), create=True)
    count = 0
    try:
        box.lock()
        for history in _emails(index):
            entry = mailbox.mboxMessage(message_of(index, history).as_bytes())
            entry.set_from("MAILER-DAEMON", history[0].created_at.timetuple())
            box.add(entry)
            count += 1
        box.flush()
    finally:
        box.unlock()
        box.close()
    return {"messages": count}


def write_eml(index: WorldIndex, out: Path) -> dict[str, int]:
    """Write every email as ``out/eml/<EMAIL-ID>.eml`` (CRLF line ends, as sent over SMTP)."""
    count = 0
    for history in _emails(index):
        put(out / "eml" / f"{history[0].artifact_id}.eml", message_of(index, history).as_bytes(policy=CRLF))
        count += 1
    return {"messages": count}


#: The formats this module writes (read from this source by ``benchmark_builders.export.formats``).
EXPORT_FORMAT = (
    ExportFormat(name="mbox", scopes=("world",), write="benchmark_builders.export.mail:write_mbox",
                  summary="RFC 5322 email, one mbox"),
    ExportFormat(name="eml", scopes=("world",), write="benchmark_builders.export.mail:write_eml",
                  summary="RFC 5322 email, one .eml per message"),
)
