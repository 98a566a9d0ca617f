"""Risk and action from MCP annotations, else from the action verb and what it acts on.

``destructiveHint: true`` -> high and ``readOnlyHint: true`` -> low, when the server says so;
otherwise the verb of the tool's name: sending, posting, deleting, paying, buying, sharing,
returning or exchanging goods -> high; creating, changing, scheduling, reserving, booking ->
medium; anything else -> low. Opening reads a document (a file, a page) and starts anything
else (a claim, an account): creating. A tool that acts (not one that reads) on money (a
transaction, a payment), credentials (a password, a token) or membership (inviting, adding or
removing a user or member) is high, as is one whose description says the action cannot be
undone or moves money. Cost is 1 unless told.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .names import local_name, tokens
from .spec import ToolSpec

#: verb -> the canonical action the rest of planfilter knows.
ACTIONS: Mapping[str, str] = {
    **dict.fromkeys(("search", "find", "lookup", "query", "locate", "match"), "search"),
    **dict.fromkeys(("list", "browse", "enumerate"), "list"),
    **dict.fromkeys(("read", "get", "fetch", "open", "view", "show", "load", "cat", "check",
                     "count", "describe", "retrieve", "inspect", "status", "log", "diff",
                     "convert", "export", "download", "preview"), "read"),
    **dict.fromkeys(("summarize", "summarise"), "summarize"),
    **dict.fromkeys(("extract", "parse"), "extract"),
    **dict.fromkeys(("write", "draft", "comment", "annotate"), "write"),
    **dict.fromkeys(("create", "add", "new", "make", "generate", "insert", "upload",
                     "register", "build", "backup", "run", "start", "commit", "schedule",
                     "reserve", "book", "append", "issue", "enrol", "enroll", "submit",
                     "file", "lodge", "place", "record", "report", "request", "raise",
                     "join", "dispute", "claim"),
                    "create"),
    **dict.fromkeys(("update", "edit", "modify", "set", "change", "rename", "move", "apply",
                     "reschedule", "invite", "archive", "label", "tag", "mark", "approve",
                     "reset", "checkout", "escalate", "assign", "patch", "put", "block",
                     "cancel", "revoke", "remove", "stage", "unstage", "freeze", "unfreeze",
                     "suspend", "restore", "activate", "deactivate", "unblock", "upgrade",
                     "downgrade", "renew", "extend", "replace", "swap", "substitute",
                     "withdraw", "release", "pause", "resume", "close", "waive", "void",
                     "confirm", "redeem", "credit", "port", "reverse", "adjust", "postpone",
                     "defer", "accept", "decline", "reject", "lock", "unlock", "enable",
                     "disable", "flag", "link", "merge", "allocate", "reinstate",
                     "subscribe", "unsubscribe", "leave", "amend", "correct", "rectify"),
                    "update"),
    **dict.fromkeys(("send", "reply", "forward", "post", "publish", "notify", "email",
                     "message", "respond"), "send"),
    **dict.fromkeys(("delete", "erase", "destroy", "drop", "purge", "wipe", "unlink"),
                    "delete"),
    **dict.fromkeys(("share", "grant"), "share"),
    **dict.fromkeys(("pay", "purchase", "buy", "order", "transfer", "charge", "refund",
                     "exchange", "return"), "purchase"),
}
#: Verbs read from a tool's name only: a docstring opening "Return the ..." says what the
#: function gives back, not that it returns goods.
NAME_ONLY_VERBS = frozenset({"return"})
HIGH_ACTIONS = frozenset({"send", "delete", "share", "purchase"})
#: Actions that change something: on money, credentials or membership they are high.
ACTING = frozenset({"create", "update", "write", "send", "delete", "share", "purchase"})
#: Name words of what a tool acts on that make acting on it high risk.
MONEY_WORDS = frozenset({"money", "transaction", "transactions", "payment", "payments",
                         "transfer", "iban", "funds", "refund", "wire"})
CREDENTIAL_WORDS = frozenset({"password", "passwords", "credential", "credentials", "token",
                              "secret", "pin", "passphrase", "mfa", "2fa"})
MEMBER_WORDS = frozenset({"user", "users", "member", "members", "admin", "role", "roles"})
MEMBER_VERBS = frozenset({"add", "invite", "remove", "kick", "ban", "grant", "revoke",
                          "promote"})
MEDIUM_ACTIONS = frozenset({"create", "update"})
#: Description phrases that make any action high risk.
HIGH_PHRASES = re.compile(
    r"cannot be undone|can't be undone|irreversib|permanently|cannot be recovered|"
    r"\bcharged\b|\bpaid out\b|money|funds", re.IGNORECASE)


@dataclass(frozen=True)
class RiskDraft:
    risk: str
    action: str | None
    note: str
    action_note: str


#: Verbs that read what they act on only when it is a document (open a file, a page) and
#: otherwise start something (open a claim, an account, a ticket): verb -> the action then.
DOCUMENT_VERBS: Mapping[str, str] = {"open": "create"}
#: What a document verb reads: words of the object that follows it.
DOCUMENT_WORDS = frozenset({"file", "files", "document", "documents", "page", "pages", "url",
                            "link", "tab", "folder", "directory", "attachment", "image",
                            "pdf", "webpage", "website", "site", "app", "window", "path"})
#: Words read after a verb to find its object (a description's "a", "the" and adjectives).
OBJECT_WORDS = 4


def _action(verb: str, following: Sequence[str]) -> str:
    """The canonical action of ``verb``, given the words that follow it."""
    if verb in DOCUMENT_VERBS and not DOCUMENT_WORDS & set(following[:OBJECT_WORDS]):
        return DOCUMENT_VERBS[verb]
    return ACTIONS[verb]


def action_of(spec: ToolSpec) -> tuple[str | None, str]:
    """(canonical action, verb it came from): the first verb in the name, else the first word
    of the description (a document verb by its object: :data:`DOCUMENT_VERBS`). A verb
    done again is the verb's (``reissue`` is ``issue``'s, ``resend`` ``send``'s). A name
    that opens with the description's first word opens with its verb, listed or not: the
    words after it are what it acts on (``join_waiting_list``, "Join ...": no list read)."""
    words = tokens(local_name(spec.name))
    first = tokens(spec.description.split(".", 1)[0]) if spec.description.strip() else ()
    for i, word in enumerate(words):
        if (verb := _verb(word)) is not None:
            return _action(verb, words[i + 1:]), word
        if i == 0 and first and first[0] == word:  # the verb both open with, one not listed:
            return None, ""  # what follows is its object ("join_waiting_list": no "list")
    if first and (verb := _verb(first[0])) is not None and verb not in NAME_ONLY_VERBS:
        return _action(verb, first[1:]), first[0]
    return None, ""


def _verb(word: str) -> str | None:
    """``word`` as a verb of :data:`ACTIONS`, or that verb again (``re`` + verb); else None."""
    if word in ACTIONS:
        return word
    again = word[2:] if word.startswith("re") and len(word) > 5 else ""
    return again if again in ACTIONS and again not in NAME_ONLY_VERBS else None


def risk_of(spec: ToolSpec) -> RiskDraft:
    action, verb = action_of(spec)
    action_note = f"rule: verb '{verb}'" if action else "rule: no known verb"
    hints = spec.annotations
    if hints.get("destructiveHint") is True:
        return RiskDraft("high", action, "schema: annotations.destructiveHint", action_note)
    if hints.get("readOnlyHint") is True:
        return RiskDraft("low", action or "read", "schema: annotations.readOnlyHint",
                         action_note if action else "schema: annotations.readOnlyHint")
    words = tokens(local_name(spec.name))
    if action in ACTING:
        for kind, vocabulary in (("money", MONEY_WORDS), ("credentials", CREDENTIAL_WORDS)):
            hit = next((w for w in words if w in vocabulary), None)
            if hit:
                return RiskDraft("high", action, f"rule: {action} on {kind} ('{hit}')",
                                 action_note)
        if verb in MEMBER_VERBS and (hit := next((w for w in words if w in MEMBER_WORDS),
                                                 None)):
            return RiskDraft("high", action, f"rule: membership ({verb} a {hit})",
                             action_note)
    phrase = HIGH_PHRASES.search(spec.description)
    if phrase:
        return RiskDraft("high", action, f"rule: description says {phrase.group(0)!r}",
                         action_note)
    if action in HIGH_ACTIONS:
        return RiskDraft("high", action, f"rule: {action} verb '{verb}'", action_note)
    if action in MEDIUM_ACTIONS:
        return RiskDraft("medium", action, f"rule: {action} verb '{verb}'", action_note)
    why = f"rule: {action} verb '{verb}'" if action else "rule: no risky verb"
    return RiskDraft("low", action, why, action_note)
