"""Amendment lines: how a proposal changes the rules' text, read and applied as pure functions.

A proposal may hold, anywhere and one a line (keywords in any case)::

    Amend rule 4.2 to read: TEXT
    Replace "OLD" with "NEW" in rule 4.2
    Repeal rule 6.1
    Enact rule 4.5 "TITLE": TEXT

and, right after an amend or enact line, a fenced ```rule block: that rule's mechanics, checked by
``check_block`` (the rule language's checker). ``parse_changes`` reads the lines (refusing an
unreadable one with its line number); ``apply_changes`` applies them in order, each to the text the
earlier ones left, binding the new texts' values to the options (``document.bind``). When a proposal
is made the changes must all apply (``lapse=False``: the first that cannot is the refusal); when it
passes, one that no longer applies lapses alone with its reason and the rest apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import field

from games.nomic.document import (
    MAX_TEXT,
    MAX_TITLE,
    DocumentError,
    Fenced,
    Rule,
    RuleDocument,
    bind,
    bound_options,
    changed_sentences,
    explicit,
    find_quote,
    option_label,
    read_lines,
    render,
    rule_number,
    sentences,
    show,
    slots,
    word_diff,
)
from games.nomic.errors import BadInputError, RuleError
from games.nomic.ruleset import Ruleset
from games.nomic.state import ChangeKind, TextChange
from games.values import valueclass

MAX_CHANGES = 20
"""Amendment lines one proposal may hold."""


class ChangeError(BadInputError):
    """An amendment line that cannot be applied to the rules as they stand."""


class BlockError(BadInputError):
    """A rule block the rule language refuses; ``line`` and ``column`` are within the block (from 1)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


BlockChecker = Callable[[str], None]


def _rule_language(source: str) -> None:
    """The rule language's own check (``games.nomic.rulelang``): a ``RuleBlockError`` names the line and
    column within the block. Imported here: the language's package reaches the round's events, which
    read this module."""
    from games.nomic.rulelang.syntax import check_block as check_rule_block

    check_rule_block(source)


check_block: BlockChecker = _rule_language
"""The checker of a ```rule block: returns quietly, or raises a ``RuleError`` saying what is wrong and
where. A module attribute, so a test may put another in its place."""


def _check_block(source: str) -> None:
    check_block(source)


# --- reading the lines -----------------------------------------------------------------------------------

_QUOTE = "\"“”„«»"
_LEAD = re.compile(r"^(?:>\s*|[-*+•]\s+|\d{1,3}[.)]\s+)*")
_INTENT = re.compile(rf"(?:amend|repeal|enact)\s+rule\b|replace\s+[{_QUOTE}]", re.IGNORECASE)
_AMEND = re.compile(r"amend\s+rule\s+(?P<rule>\S+?)\s+to\s+read\s*:(?P<text>.*)", re.IGNORECASE | re.DOTALL)
_REPLACE = re.compile(
    rf"replace\s+[{_QUOTE}](?P<old>.+)[{_QUOTE}]\s+with\s+[{_QUOTE}](?P<new>.*)[{_QUOTE}]"
    r"\s+in\s+rule\s+(?P<rule>\S+?)[.:;]?",
    re.IGNORECASE | re.DOTALL,
)
_REPEAL = re.compile(r"repeal\s+rule\s+(?P<rule>\S+?)[.:;]?", re.IGNORECASE)
_ENACT = re.compile(
    rf"enact\s+rule\s+(?P<rule>\S+?)\s+[{_QUOTE}](?P<title>[^{_QUOTE}]+)[{_QUOTE}]\s*:(?P<text>.*)",
    re.IGNORECASE | re.DOTALL,
)
_USAGE = {
    "amend": "`Amend rule 4.2 to read: TEXT`",
    "replace": '`Replace "OLD" with "NEW" in rule 4.2`',
    "repeal": "`Repeal rule 6.1`",
    "enact": '`Enact rule 4.5 "TITLE": TEXT`',
}


def _fail(line: int, why: str) -> BadInputError:
    return BadInputError(f"line {line}: {why}")


def _read_line(number: int, line: str) -> TextChange | None:
    """One line as an amendment line, None when it is none; an unreadable one is refused."""
    body = _LEAD.sub("", line.replace("**", "").strip())
    if not _INTENT.match(body):
        return None
    keyword = body.split(None, 1)[0].lower()
    match = {"amend": _AMEND, "replace": _REPLACE, "repeal": _REPEAL, "enact": _ENACT}[keyword].fullmatch(body)
    if match is None:
        raise _fail(number, f"`{body[:60]}` cannot be read; write {_USAGE[keyword]}")
    try:
        rule = rule_number(match["rule"])
    except BadInputError as exc:
        raise _fail(number, str(exc)) from None
    kind = ChangeKind(keyword)
    groups = match.groupdict()
    text, title = (groups.get("text") or "").strip(), (groups.get("title") or "").strip()
    old, new = groups.get("old") or "", groups.get("new") or ""
    if kind in {ChangeKind.AMEND, ChangeKind.ENACT} and not text:
        raise _fail(number, f"rule {rule} needs its text after the colon, as in {_USAGE[keyword]}")
    if kind is ChangeKind.REPLACE and not old.strip():
        raise _fail(number, "quote the words to replace between the first pair of quotation marks")
    if len(text) > MAX_TEXT or len(old) > MAX_TEXT or len(new) > MAX_TEXT:
        raise _fail(number, f"a rule's text is at most {MAX_TEXT:,} characters")
    if len(title) > MAX_TITLE:
        raise _fail(number, f"a rule's title is at most {MAX_TITLE} characters")
    return TextChange(kind=kind, rule=rule, text=text, old=old, new=new, title=title, line=number)


def parse_changes(text: str, urgent_prefix: str = "") -> tuple[TextChange, ...]:
    """The amendment lines of a proposal, in order, each with the ```rule block that follows it.

    The urgent prefix that may begin the proposal is not part of its first line. Lines inside other
    fenced blocks (the ``amend`` block) are not read; a ```rule block that does not follow an amend or
    enact line, or that the rule language refuses, is refused with its line.
    """
    body = text
    stripped = body.lstrip()
    if urgent_prefix and stripped.lower().startswith(urgent_prefix.lower()):
        body = body[: len(body) - len(stripped)] + stripped[len(urgent_prefix) :]
    changes: list[TextChange] = []
    waiting = False
    """Whether the change on the last non-blank line may take a block."""
    for number, line in read_lines(body):
        if isinstance(line, Fenced):
            if line.lang.lower() == "rule":
                if not waiting:
                    raise _fail(number, "a ```rule block belongs right after an `Enact rule` or `Amend rule` line")
                changes[-1] = _with_block(changes[-1], number, line.body, line.closed)
            waiting = False
            continue
        if not line.strip():
            continue
        change = _read_line(number, line)
        waiting = change is not None and change.kind in {ChangeKind.AMEND, ChangeKind.ENACT}
        if change is None:
            continue
        changes.append(change)
        if len(changes) > MAX_CHANGES:
            raise _fail(number, f"a proposal holds at most {MAX_CHANGES} amendment lines")
    return tuple(changes)


def _with_block(change: TextChange, number: int, body: list[str], closed: bool) -> TextChange:
    """The change with the ```rule block that follows it, once the rule language accepts the block."""
    if not closed:
        raise _fail(number, "the ```rule block opened here is not closed with ```")
    source = "\n".join(body).strip("\n")
    if source.strip():
        try:
            _check_block(source)
        except RuleError as exc:
            raise _fail(number, f"the rule block of rule {change.rule}: {exc}") from None
    return change.model_copy(update={"block": source})


# --- applying them ----------------------------------------------------------------------------------------


@valueclass
class ValueChange:
    """An enforced value a change sets: the option, its value before and after (as the text reads them)."""

    path: str
    old: str
    new: str
    rules: tuple[str, ...] = ()
    """The rules that bind the option (each reads the new value)."""

    @property
    def label(self) -> str:
        return option_label(self.path)


@valueclass
class Dropped:
    """An option a rule's new text (or its repeal) no longer binds: the bot keeps its value."""

    rule: str
    path: str
    kept: str
    what: str
    """What the option says, as its description gives it ("how many lots an auction holds")."""
    elsewhere: tuple[str, ...] = ()
    """Other rules that still bind it."""


@valueclass
class ChangeNote:
    """What one applied amendment line did, for the answers and the moderators' to-do list."""

    kind: ChangeKind
    rule: str
    title: str
    line: int
    diff: str = ""
    """The rule's text before and after, word by word (enact: the new text; repeal: empty)."""
    values: tuple[ValueChange, ...] = ()
    dropped: tuple[Dropped, ...] = ()
    unenforced: tuple[str, ...] = ()
    """The changed sentences the bot does not enforce (as they read with the new values)."""
    mechanics: bool = False
    """The rule has a rule block after the change: its mechanics are the block's, not left to people."""


@valueclass
class Lapse:
    """An amendment line that no longer applied when its proposal passed, and why."""

    line: int
    rule: str
    why: str


@valueclass
class Applied:
    document: RuleDocument
    ruleset: Ruleset
    notes: tuple[ChangeNote, ...] = ()
    lapsed: tuple[Lapse, ...] = field(default=())

    @property
    def for_people(self) -> bool:
        """Whether anything applied is left for people to enforce."""
        return any(note_for_people(n) for n in self.notes)


def note_for_people(note: ChangeNote) -> bool:
    if note.kind is ChangeKind.REPEAL:
        return True
    return bool(note.unenforced) and not note.mechanics


def _existing(document: RuleDocument, number: str) -> Rule:
    rule = document.rule(number)
    if rule is not None:
        return rule
    section = document.section(int(number.split(".", maxsplit=1)[0]))
    if section is None or not section.rules:
        sections = document.sections[-1].number if document.sections else 0
        raise ChangeError(f"there is no rule {number} (the sections are numbered 1 to {sections})")
    first, last = section.rules[0].number, section.rules[-1].number
    raise ChangeError(f"there is no rule {number} (section {section.number} has rules {first} to {last})")


def _what(ruleset: Ruleset, path: str) -> str:
    description = ruleset.describe(path)
    if description.split(" ", 1)[0] in {"how", "what", "when", "which", "who", "whether"}:
        return description
    return f"what {option_label(path)} is"


def _dropped(
    document: RuleDocument, rule: str, paths: Sequence[str], ruleset: Ruleset, values: dict[str, object]
) -> tuple[Dropped, ...]:
    bound = bound_options(document)
    return tuple(
        Dropped(rule, path, show(values[path]), _what(ruleset, path), tuple(bound.get(path, ()))) for path in paths
    )


def _replaced(rule: Rule, values: dict[str, object], old: str, new: str) -> str:
    """The rule's text (as read, values plain) with the quoted words replaced."""
    text = render(rule.text, values, bold=False)
    found = find_quote(text, old)
    if not found:
        shown = " ".join(text.split())
        shown = shown if len(shown) <= 160 else shown[:159] + "…"
        raise ChangeError(f"rule {rule.number} does not say “{old.strip()[:80]}”; it reads: “{shown}”")
    if len(found) > 1:
        raise ChangeError(
            f"“{old.strip()[:80]}” stands {len(found)} times in rule {rule.number}; quote more of it to say which"
        )
    start, end = found[0]
    return text[:start] + new.replace("**", "") + text[end:]


def apply_change(
    document: RuleDocument, ruleset: Ruleset, change: TextChange
) -> tuple[RuleDocument, Ruleset, ChangeNote]:
    """One amendment line applied to the rules as they stand; ``ChangeError`` (or another ``RuleError``)
    says why it cannot be."""
    values = ruleset.option_paths()
    if change.kind is ChangeKind.REPEAL:
        rule = _existing(document, change.rule)
        after = document.without(rule.number)
        dropped = _dropped(after, rule.number, slots(rule.text), ruleset, values)
        note = ChangeNote(ChangeKind.REPEAL, rule.number, rule.title, change.line, dropped=dropped)
        return after, ruleset, note
    if change.kind is ChangeKind.ENACT:
        return _enact(document, ruleset, change, values)
    rule = _existing(document, change.rule)
    new_text = change.text if change.kind is ChangeKind.AMEND else _replaced(rule, values, change.old, change.new)
    if len(new_text) > MAX_TEXT:
        raise ChangeError(f"rule {rule.number} would be longer than {MAX_TEXT:,} characters")
    if not new_text.strip():
        raise ChangeError(f"rule {rule.number} would have no text left; repeal it instead")
    try:
        binding = bind(rule.text, new_text, values)
    except DocumentError as exc:
        raise ChangeError(f"rule {rule.number}: {exc}") from None
    changed = ruleset
    for path, raw in binding.values.items():
        try:
            changed = changed.with_option(path, raw)
        except RuleError as exc:
            reason = str(exc).split(": ", 1)[-1]
            raise ChangeError(
                f"rule {rule.number} would make {option_label(path)} (`{path}`) {_shown_raw(raw)}, which the"
                f" ruleset does not allow: {reason}"
            ) from None
    after_values = changed.option_paths()
    block = rule.block if change.block is None else change.block
    new_rule = rule.model_copy(update={"text": binding.template, "block": block})
    if new_rule == rule and after_values == values:
        raise ChangeError(f"rule {rule.number} already says that")
    after = document.with_rule(new_rule)
    bound = bound_options(after)
    moved = tuple(
        ValueChange(path, show(values[path]), show(after_values[path]), tuple(bound.get(path, ())))
        for path in binding.values
        if values[path] != after_values[path]
    )
    unenforced = tuple(render(s, after_values, bold=False) for s in changed_sentences(rule.text, binding.template))
    note = ChangeNote(
        change.kind,
        rule.number,
        rule.title,
        change.line,
        diff=word_diff(render(rule.text, values, bold=False), render(binding.template, after_values, bold=False)),
        values=moved,
        dropped=_dropped(after, rule.number, binding.dropped, ruleset, values),
        unenforced=unenforced,
        mechanics=bool(block.strip()),
    )
    return after, changed, note


def _shown_raw(raw: str) -> str:
    return raw.strip("[]") or "none" if raw.startswith("[") else raw


def _enact(
    document: RuleDocument, ruleset: Ruleset, change: TextChange, values: dict[str, object]
) -> tuple[RuleDocument, Ruleset, ChangeNote]:
    number = change.rule
    if document.rule(number) is not None:
        raise ChangeError(f"rule {number} exists already; amend it, or enact the new rule under a free number")
    section_number = int(number.split(".")[0])
    last = document.sections[-1].number if document.sections else 0
    if document.section(section_number) is None and section_number != last + 1:
        raise ChangeError(
            f"there is no section {section_number}: a new rule goes in sections 1 to {last}, or opens"
            f" section {last + 1}"
        )
    try:
        explicit(change.text, values)
    except DocumentError as exc:
        raise ChangeError(f"rule {number}: {exc}") from None
    written = change.text.replace("**", "")
    template = re.sub(r"\{([A-Za-z_]+\.[A-Za-z_]+)\}", lambda m: "{" + m[1].lower() + "}", written)
    rule = Rule(number=number, title=change.title, text=" ".join(template.split()), block=change.block or "")
    after = document.with_rule(rule, section_title=change.title)
    text = render(rule.text, values, bold=False)
    note = ChangeNote(
        ChangeKind.ENACT,
        number,
        change.title,
        change.line,
        diff=text,
        unenforced=tuple(render(s, values, bold=False) for s in sentences(rule.text)),
        mechanics=bool(rule.block.strip()),
    )
    return after, ruleset, note


def apply_changes(
    document: RuleDocument, ruleset: Ruleset, changes: Sequence[TextChange], *, lapse: bool
) -> Applied:
    """The changes in order, each applied to what the earlier ones left.

    ``lapse`` False (a proposal being made): the first change that cannot apply raises, naming its
    line. True (a proposal passing): such a change lapses alone, with its reason, and the rest apply.
    Two changes of one proposal may not set one option to two values.
    """
    notes: list[ChangeNote] = []
    lapsed: list[Lapse] = []
    set_by: dict[str, tuple[ValueChange, int, str]] = {}
    for change in changes:
        try:
            after, changed, note = apply_change(document, ruleset, change)
            for value in note.values:
                earlier = set_by.get(value.path)
                if earlier is not None and earlier[0].new != value.new:
                    raise ChangeError(
                        f"rule {note.rule} would make {value.label} {value.new}, but line {earlier[1]} (rule"
                        f" {earlier[2]}) makes it {earlier[0].new}"
                    )
        except RuleError as exc:
            if not lapse:
                raise BadInputError(f"line {change.line}: {exc}") from None
            lapsed.append(Lapse(change.line, change.rule, str(exc)))
            continue
        for value in note.values:
            set_by.setdefault(value.path, (value, change.line, note.rule))
        document, ruleset = after, changed
        notes.append(note)
    return Applied(document, ruleset, tuple(notes), tuple(lapsed))


# --- importing a document ---------------------------------------------------------------------------------


def check_blocks(document: RuleDocument) -> None:
    """Every rule block of a document, through the rule language's checker."""
    for rule in document.rules():
        if rule.block.strip():
            try:
                _check_block(rule.block)
            except RuleError as exc:
                raise BadInputError(f"the rule block of rule {rule.number}: {exc}") from None


def compare(
    before: RuleDocument, after: RuleDocument, values_before: dict[str, object], values_after: dict[str, object]
) -> list[ChangeNote]:
    """Rule by rule, what differs between two documents as they read (added, removed and changed rules)."""
    notes: list[ChangeNote] = []
    old = {r.number: r for r in before.rules()}
    new = {r.number: r for r in after.rules()}
    numbers = sorted({*old, *new}, key=lambda n: tuple(int(p) for p in n.split(".")))
    for number in numbers:
        a, b = old.get(number), new.get(number)
        if b is None and a is not None:
            notes.append(ChangeNote(ChangeKind.REPEAL, number, a.title, 0))
            continue
        if b is None:
            continue
        text_b = render(b.text, values_after, bold=False)
        if a is None:
            notes.append(ChangeNote(ChangeKind.ENACT, number, b.title, 0, diff=text_b, mechanics=bool(b.block)))
            continue
        text_a = render(a.text, values_before, bold=False)
        if (text_a, a.title, a.block) == (text_b, b.title, b.block):
            continue
        diff = word_diff(text_a, text_b) if text_a != text_b else ""
        notes.append(ChangeNote(ChangeKind.AMEND, number, b.title, 0, diff=diff, mechanics=bool(b.block)))
    return notes
