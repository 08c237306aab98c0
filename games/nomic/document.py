"""The ruleset as a document: numbered rules with titles in sections, and the options bound into them.

A rule's stored text is a template: ``{auction.lots_per_auction}`` binds an option of the ruleset
(``games.nomic.ruleset``) and reads as its value, in bold for readers. So the text and what the bot
enforces cannot drift apart: a new text that says 8 where the template says
``{auction.lots_per_auction}`` is the option set to 8 (``bind``). Everything here is pure: the
document is an immutable value, written to and read from Markdown (``to_markdown``,
``parse_markdown``), and the default one lives in ``data/rulesets/default.md``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache

from pydantic import BaseModel, ConfigDict

from games.nomic.errors import BadInputError
from games.nomic.ruleset import RULESETS_DIR, Ruleset, Weekday
from games.values import valueclass

MAX_DOCUMENT_LENGTH = 100_000
"""The most characters an imported document may have (the default one has about 9,000)."""
MAX_RULES = 400
MAX_TITLE = 100
MAX_TEXT = 1_500
"""The most characters of one rule's text: ``!ruleset 4.2`` shows it whole in one message."""
MAX_BLOCK = 4_000
DEFAULT_TITLE = "The rules of the round"


class DocumentError(BadInputError):
    """A document (or a rule's text) that cannot be read; says what is wrong and where."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


class Rule(_Value):
    number: str
    """``S.N``: the section's number and the rule's within it (``4.2``)."""
    title: str
    text: str
    """The template: ``{option.path}`` binds an option; paragraphs are separated by a blank line."""
    block: str = ""
    """The rule's mechanics in the rule language, as written (empty: none)."""


class Section(_Value):
    number: int
    title: str
    rules: tuple[Rule, ...] = ()


class RuleDocument(_Value):
    """Sections in number order, each with its rules in number order."""

    title: str = DEFAULT_TITLE
    intro: str = ""
    sections: tuple[Section, ...] = ()

    def rules(self) -> Iterator[Rule]:
        for section in self.sections:
            yield from section.rules

    def rule(self, number: str) -> Rule | None:
        section_number, _, _ = number.partition(".")
        for section in self.sections:
            if str(section.number) == section_number:
                return next((r for r in section.rules if r.number == number), None)
        return None

    def section(self, number: int) -> Section | None:
        return next((s for s in self.sections if s.number == number), None)

    def with_rule(self, rule: Rule, *, section_title: str = "") -> RuleDocument:
        """The document with ``rule`` in its place (replacing the rule of that number, if any); a rule of a
        section that does not exist yet opens it, titled ``section_title``."""
        section_number, _ = rule_key(rule.number)
        sections = list(self.sections)
        for i, section in enumerate(sections):
            if section.number == section_number:
                kept = [r for r in section.rules if r.number != rule.number]
                ordered = sorted([*kept, rule], key=lambda r: rule_key(r.number)[1])
                sections[i] = section.model_copy(update={"rules": tuple(ordered)})
                return self.model_copy(update={"sections": tuple(sections)})
        sections.append(Section(number=section_number, title=section_title or rule.title, rules=(rule,)))
        sections.sort(key=lambda s: s.number)
        return self.model_copy(update={"sections": tuple(sections)})

    def without(self, number: str) -> RuleDocument:
        """The document without rule ``number`` (its section stays, even empty: its number is not free)."""
        sections = tuple(
            s.model_copy(update={"rules": tuple(r for r in s.rules if r.number != number)})
            if any(r.number == number for r in s.rules)
            else s
            for s in self.sections
        )
        return self.model_copy(update={"sections": sections})


_RULE_NUMBER = re.compile(r"(\d{1,3})\.(\d{1,3})")


def rule_key(number: str) -> tuple[int, int]:
    match = _RULE_NUMBER.fullmatch(number)
    if match is None:
        raise BadInputError(f"`{number[:20]}` is not a rule number; write it as section and rule, e.g. 4.2")
    return int(match[1]), int(match[2])


def rule_number(text: str) -> str:
    """A typed rule number in its one written form (``04.2.`` reads as ``4.2``)."""
    section, index = rule_key(text.strip().rstrip(".:,;"))
    return f"{section}.{index}"


# --- options as values in text --------------------------------------------------------------------------


@cache
def option_values() -> Mapping[str, object]:
    """Every option path with its default value: the paths a placeholder may name, and each one's type."""
    return Ruleset().option_paths()


def option_label(path: str) -> str:
    """``auction.lots_per_auction`` as people say it: lots per auction."""
    return path.partition(".")[2].replace("_", " ")


def show(value: object) -> str:
    """An option's value as the text reads it: 6, on, Sunday, carry over, 24 and 1, none."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Weekday):
        return value.value.capitalize()
    if isinstance(value, StrEnum):
        return value.value.replace("_", " ")
    if isinstance(value, tuple | list):
        items = [show(v) for v in value]
        if not items:
            return "none"
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    return str(value)


_UNITS = {
    word: n
    for n, word in enumerate([
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ])
}  # fmt: skip
_TENS = {
    word: 10 * n
    for n, word in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2)
}
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand"], key=len, reverse=True))
_INT = rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d+|(?:{_NUMBER_WORD})(?:[-\s]+(?:{_NUMBER_WORD}))*)"
_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.IGNORECASE)


def parse_number(text: str) -> int | None:
    """A whole number written in digits (``1,000`` too) or in English words (``twenty-five``); None otherwise."""
    token = text.strip().lower()
    if _DIGITS.fullmatch(token):
        return int(token.replace(",", ""))
    words = [w for w in re.split(r"[-\s]+", token) if w]
    if not words or len(words) > 8:
        return None
    total = current = 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word == "thousand":
            total += (current or 1) * 1000
            current = 0
        else:
            return None
    return total + current


def number_words(n: int) -> str:
    """The English words of a number under a thousand (``twenty-five``); digits for larger ones."""
    if n >= 1000 or n < 0:
        return str(n)
    units = {v: k for k, v in _UNITS.items()}
    tens = {v: k for k, v in _TENS.items()}
    if n < 20:
        return units[n]
    if n < 100:
        return tens[n - n % 10] + (f"-{units[n % 10]}" if n % 10 else "")
    rest = n % 100
    return f"{units[n // 100]} hundred" + (f" {number_words(rest)}" if rest else "")


def value_pattern(value: object) -> str:
    """What a value of ``value``'s kind may look like in a new text (a regular expression)."""
    if isinstance(value, bool):
        return r"(?i:on|off|yes|no|true|false)"
    if isinstance(value, StrEnum):
        members = sorted((m.value.replace("_", "[ _]") for m in type(value)), key=len, reverse=True)
        return "(?i:" + "|".join(members) + ")"
    if isinstance(value, int):
        return f"(?i:{_INT})"
    if isinstance(value, tuple):
        return rf"(?i:none|off|{_INT}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+){_INT})*)"
    return r".+?"


def read_value(text: str, like: object) -> str | None:
    """A value written in a new text, as ``Ruleset.with_option`` takes it; None when it is no value of
    ``like``'s kind. The options model still decides whether it is allowed."""
    token = " ".join(text.replace("**", "").split())
    lowered = token.lower()
    if not token:
        return None
    if isinstance(like, bool):
        if lowered in {"on", "yes", "true"}:
            return "on"
        return "off" if lowered in {"off", "no", "false"} else None
    if isinstance(like, StrEnum):
        wanted = lowered.replace(" ", "_")
        return next((m.value for m in type(like) if m.value == wanted), None)
    if isinstance(like, int):
        number = parse_number(token)
        return None if number is None else str(number)
    if isinstance(like, tuple):
        if lowered in {"none", "off"}:
            return "[]"
        numbers = [parse_number(part) for part in _LIST_SEPARATOR.split(token)]
        if any(n is None for n in numbers):
            return None
        return "[" + ", ".join(str(n) for n in numbers) + "]"
    return token


# --- templates ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slot:
    """A placeholder of a template: the option it binds."""

    path: str


Part = str | Slot
_BRACED = re.compile(r"\{([A-Za-z_]+\.[A-Za-z_]+)\}")


@lru_cache(maxsize=4096)
def parts(template: str) -> tuple[Part, ...]:
    """The template as literal text and slots, in order (an unknown path stays literal: see ``unknown``)."""
    out: list[Part] = []
    at = 0
    known = option_values()
    for match in _BRACED.finditer(template):
        path = match[1].lower()
        if path not in known:
            continue
        if match.start() > at:
            out.append(template[at : match.start()])
        out.append(Slot(path))
        at = match.end()
    if at < len(template):
        out.append(template[at:])
    return tuple(out)


def unknown_placeholders(text: str) -> list[str]:
    """The ``{part.name}`` of a text that name no option."""
    known = option_values()
    return [m[0] for m in _BRACED.finditer(text) if m[1].lower() not in known]


def slots(template: str) -> list[str]:
    """The option paths a template binds, in order of first appearance."""
    seen: dict[str, None] = {}
    for part in parts(template):
        if isinstance(part, Slot):
            seen.setdefault(part.path)
    return list(seen)


def render(template: str, values: Mapping[str, object], *, bold: bool = True) -> str:
    """The text as readers see it: every slot reads as its value (in bold, unless ``bold`` is False)."""
    out: list[str] = []
    for part in parts(template):
        if isinstance(part, Slot):
            shown = show(values[part.path])
            out.append(f"**{shown}**" if bold else shown)
        else:
            out.append(part)
    return "".join(out)


def _spans(template: str, values: Mapping[str, object]) -> tuple[str, list[tuple[str, int, int]]]:
    """The plain rendered text and, for each slot, its option and the characters its value takes."""
    out: list[str] = []
    spans: list[tuple[str, int, int]] = []
    at = 0
    for part in parts(template):
        text = show(values[part.path]) if isinstance(part, Slot) else part
        if isinstance(part, Slot):
            spans.append((part.path, at, at + len(text)))
        out.append(text)
        at += len(text)
    return "".join(out), spans


@lru_cache(maxsize=1024)
def _template_regex(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """The template as a pattern any text saying the same with other values matches; and each group's option."""
    kinds = option_values()
    pattern: list[str] = []
    paths: list[str] = []
    for part in parts(template):
        if isinstance(part, Slot):
            pattern.append(f"({value_pattern(kinds[part.path])})")
            paths.append(part.path)
        else:
            words = part.replace("**", "").split()
            literal = r"\s+".join(re.escape(w) for w in words)
            lead = r"\s*" if part[:1].isspace() or not words else ""
            tail = r"\s*" if part[-1:].isspace() and words else ""
            pattern.append(lead + literal + tail)
    return re.compile("".join(pattern), re.DOTALL), tuple(paths)


# --- binding: a new text against the old template --------------------------------------------------------


@valueclass
class Binding:
    """What a new text of a rule means for the options: the template to store and the values it gives."""

    template: str
    values: Mapping[str, str]
    """Each option the new template binds, with the value the new text gives it (as ``with_option`` takes it)."""
    dropped: tuple[str, ...]
    """Options the old template bound and the new one no longer does."""


_TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int
    end: int


def _tokens(text: str) -> list[_Token]:
    return [_Token(m[0], m.start(), m.end()) for m in _TOKEN.finditer(text)]


def explicit(text: str, values: Mapping[str, object]) -> tuple[str, list[tuple[str, int, int]]]:
    """A new text with the placeholders its author wrote (``{auction.weekly_points}``) read as their values,
    and where each one's value stands; an unknown one is refused."""
    unknown = unknown_placeholders(text)
    if unknown:
        raise DocumentError(f"`{unknown[0][:60]}` names no option of the ruleset")
    out: list[str] = []
    spans: list[tuple[str, int, int]] = []
    at = 0
    length = 0
    for match in _BRACED.finditer(text):
        literal = text[at : match.start()]
        out.append(literal)
        length += len(literal)
        path = match[1].lower()
        shown = show(values[path])
        spans.append((path, length, length + len(shown)))
        out.append(shown)
        length += len(shown)
        at = match.end()
    out.append(text[at:])
    return "".join(out), spans


def bind(template: str, new_text: str, values: Mapping[str, object]) -> Binding:
    """Read a rule's new text against its old template.

    When the new text is the template with other values (in digits or in words: "eight lots"), the
    template stays and the values are what it says. Otherwise the two are aligned word by word: a
    value in an unchanged stretch stays bound, a value whose words alone were replaced by another
    value of its kind is bound to that one, and a value the text no longer holds is dropped (the
    option keeps its value). Placeholders written into the new text bind as they are.
    """
    text, forced = explicit(new_text.replace("**", "").strip(), values)
    if not forced:
        regex, paths = _template_regex(template)
        match = regex.fullmatch(text.strip())
        if match is not None:
            found = [read_value(group, values[path]) for group, path in zip(match.groups(), paths, strict=True)]
            if all(v is not None for v in found):
                given = _one_value_each(list(zip(paths, (v for v in found if v is not None), strict=True)))
                return Binding(template, given, ())
    return _align(template, text, values, forced)


def _one_value_each(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    given: dict[str, str] = {}
    for path, value in pairs:
        if given.get(path, value) != value:
            raise DocumentError(
                f"it says two things of {option_label(path)} (`{path}`): {_plain(given[path])} and {_plain(value)}"
            )
        given[path] = value
    return given


def _plain(raw: str) -> str:
    return raw.strip("[]") if raw.startswith("[") else raw


@valueclass
class _Alignment:
    """An old text (rendered from its template) and a new one, aligned word by word."""

    old: list[_Token]
    new: list[_Token]
    text: str
    """The new text."""
    spans: list[tuple[str, int, int]]
    """Each slot of the old template: its option and the characters its value takes in the old text."""

    @property
    def opcodes(self) -> list[tuple[str, int, int, int, int]]:
        matcher = difflib.SequenceMatcher(None, [t.text for t in self.old], [t.text for t in self.new], autojunk=False)
        return [(tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]

    def follow(
        self, opcodes: Sequence[tuple[str, int, int, int, int]], *, start: int, end: int, like: object
    ) -> tuple[int, int, str] | None:
        """Where the value of the slot at ``start:end`` stands in the new text and what it is, or None when
        the new text dropped it."""
        old, new = self.old, self.new
        first = next((i for i, t in enumerate(old) if t.end > start), None)
        last = next((i for i in range(len(old) - 1, -1, -1) if old[i].start < end), None)
        if first is None or last is None or first > last:
            return None
        for tag, i1, i2, j1, j2 in opcodes:
            if not i1 <= first < i2:
                continue
            if last >= i2:
                return None
            if tag == "equal":
                new_start = new[j1 + first - i1].start + start - old[first].start
                new_end = new[j1 + last - i1].start + end - old[last].start
                return new_start, new_end, _raw(like)
            if tag != "replace" or old[first].start < start or old[last].end > end:
                return None
            return self._replaced(i1, i2, j1, j2, first - i1, i2 - 1 - last, start, end, like)
        return None

    def _replaced(  # noqa: PLR0917 (a stretch of the alignment and a slot in it)
        self, i1: int, i2: int, j1: int, j2: int, before: int, after: int, start: int, end: int, like: object
    ) -> tuple[int, int, str] | None:
        """A slot in a replaced stretch (``before`` and ``after`` words of it around the value): bound to the
        new words in its place when they are a value of its kind."""
        old, new = self.old, self.new
        if any(s[1] < old[i2 - 1].end and s[2] > old[i1].start and (s[1], s[2]) != (start, end) for s in self.spans):
            return None  # two values in one stretch: which is which cannot be told
        tries = [(j1 + before, j2 - after)] if j2 - j1 - before - after >= 1 else []
        # the words around the value changed too: the one word as far from the nearer end of the stretch
        tries.append((j2 - 1 - after, j2 - after) if after < before else (j1 + before, j1 + before + 1))
        for a, b in tries:
            if j1 <= a < b <= j2:
                value_start, value_end = new[a].start, new[b - 1].end
                raw = read_value(self.text[value_start:value_end], like)
                if raw is not None:
                    return value_start, value_end, raw
        return None


def _align(template: str, text: str, values: Mapping[str, object], forced: list[tuple[str, int, int]]) -> Binding:
    old_text, old_spans = _spans(template, values)
    alignment = _Alignment(_tokens(old_text), _tokens(text), text, old_spans)
    opcodes = alignment.opcodes
    kept: list[tuple[str, int, int, str]] = [(p, s, e, _raw(values[p])) for p, s, e in forced]
    for path, start, end in old_spans:
        found = alignment.follow(opcodes, start=start, end=end, like=values[path])
        if found is not None:
            kept.append((path, *found))
    spans = _without_overlaps(kept)
    pieces: list[str] = []
    at = 0
    for path, start, end, _ in sorted(spans, key=lambda s: s[1]):
        pieces.extend((text[at:start], "{" + path + "}"))
        at = end
    pieces.append(text[at:])
    given = _one_value_each([(path, raw) for path, _, _, raw in spans])
    dropped = tuple(p for p in slots(template) if p not in given)
    return Binding("".join(pieces).strip(), given, dropped)


def _raw(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, StrEnum):
        return value.value
    return str(value)


def _without_overlaps(spans: list[tuple[str, int, int, str]]) -> list[tuple[str, int, int, str]]:
    """The first of two overlapping spans wins (forced placeholders come first)."""
    out: list[tuple[str, int, int, str]] = []
    for span in spans:
        if all(span[2] <= s[1] or span[1] >= s[2] for s in out):
            out.append(span)
    return out


# --- quoted text ------------------------------------------------------------------------------------------

_NUMBER_PHRASE = re.compile(rf"(?<!\w){_INT}(?!\w)", re.IGNORECASE)


def _loose_literal(text: str) -> str:
    words = text.split()
    if not words:
        return r"\s*" if text else ""
    lead = r"\s+" if text[:1].isspace() else ""
    tail = r"\s+" if text[-1:].isspace() else ""
    return lead + r"\s+".join(re.escape(w) for w in words) + tail


def _loose(quote: str) -> re.Pattern[str]:
    """A quote as a pattern that also finds it with other spacing or case, and with its numbers written
    either way (``six lots`` finds ``6 lots``)."""
    out: list[str] = []
    at = 0
    for match in _NUMBER_PHRASE.finditer(quote):
        number = parse_number(match[0])
        if number is None:
            continue
        out.append(_loose_literal(quote[at : match.start()]))
        words = r"[-\s]+".join(re.escape(w) for w in re.split(r"[-\s]+", number_words(number)))
        out.append(rf"(?<!\w)(?:{number}|{words})(?!\w)")
        at = match.end()
    out.append(_loose_literal(quote[at:]))
    return re.compile("".join(out), re.IGNORECASE)


def find_quote(text: str, quote: str) -> list[tuple[int, int]]:
    """Where ``quote`` stands in ``text``: word for word if it is there, else read loosely (``_loose``)."""
    quote = quote.replace("**", "")
    exact = [(m.start(), m.end()) for m in re.finditer(re.escape(quote), text)]
    if exact or not quote.strip():
        return exact
    return [(m.start(), m.end()) for m in _loose(quote).finditer(text) if m.end() > m.start()]


# --- comparing texts -------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text.replace("**", "")) if s.strip()]


def changed_sentences(old_template: str, new_template: str) -> list[str]:
    """The sentences of the new template that the old one does not have word for word (values aside:
    a slot reads as its option's name in both)."""
    before = set(sentences(old_template))
    return [s for s in sentences(new_template) if s not in before]


_WORDS = re.compile(r"\n\s*\n|\S+")
CONTEXT_WORDS = 6
"""Unchanged words a diff keeps on each side of a change; longer unchanged stretches are cut."""


class Words(StrEnum):
    """What a stretch of a word diff is."""

    SAME = "same"
    CUT = "cut"
    """Unchanged words left out (shown as …)."""
    REMOVED = "removed"
    ADDED = "added"


def word_changes(old: str, new: str, *, context: int = CONTEXT_WORDS) -> list[tuple[Words, str]]:
    """``new`` as a change of ``old``, word by word: stretches of unchanged, removed and added words, long
    unchanged stretches cut to a few words around each change. What the answers (``word_diff``) and the
    web record show."""
    a, b = _WORDS.findall(old.replace("**", "")), _WORDS.findall(new.replace("**", ""))
    out: list[tuple[Words, str]] = []
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            words = a[i1:i2]
            first, last = index == 0, index == len(opcodes) - 1
            if len(opcodes) > 1 and len(words) > 2 * context + 1:
                head = [] if first else words[:context]
                tail = [] if last else words[-context:]
                out.extend((Words.SAME, _join(part)) for part in (head,) if part)
                out.append((Words.CUT, "…"))
                out.extend((Words.SAME, _join(part)) for part in (tail,) if part)
            elif words:
                out.append((Words.SAME, _join(words)))
            continue
        if i2 > i1:
            out.append((Words.REMOVED, _join(a[i1:i2])))
        if j2 > j1:
            out.append((Words.ADDED, _join(b[j1:j2])))
    return out


_MARKS = {Words.SAME: "{}", Words.CUT: "{}", Words.REMOVED: "~~{}~~", Words.ADDED: "**{}**"}


def word_diff(old: str, new: str, *, context: int = CONTEXT_WORDS) -> str:
    """``new`` as a change of ``old``, word by word: removed words ~~struck~~, added words in **bold**;
    long unchanged stretches are cut to a few words around each change (…)."""
    out = [_MARKS[kind].format(text) for kind, text in word_changes(old, new, context=context)]
    return " ".join(p for p in out if p).replace(" \n", "\n").replace("\n ", "\n")


def _join(words: Sequence[str]) -> str:
    return " ".join("\n" if not w.strip() else w for w in words)


# --- Markdown -------------------------------------------------------------------------------------------

_TITLE = re.compile(r"#[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*")
_SECTION = re.compile(r"##[ \t]+(?P<number>\d{1,3})\.?[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*")
_RULE = re.compile(r"###[ \t]+(?P<section>\d{1,3})\.(?P<number>\d{1,3})\.?(?:[ \t]+(?P<title>.*?))?[ \t]*#*[ \t]*")
_FENCE = re.compile(r"(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w-]*)[ \t]*")


def _tidy(lines: Sequence[str]) -> str:
    """A text's lines without trailing spaces, blank lines at either end or more than one blank line in a row."""
    text = "\n".join(line.rstrip() for line in lines).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


@dataclass
class _Open:
    """A rule being read."""

    number: str
    title: str
    line: int
    text: list[str]
    block: str | None = None


class _Reader:
    """Reads a Markdown document line by line (``parse_markdown``)."""

    def __init__(self) -> None:
        self.title = ""
        self.intro: list[str] = []
        self.sections: list[Section] = []
        self.section: tuple[int, str, list[Rule]] | None = None
        self.rule: _Open | None = None
        self.count = 0

    def fail(self, line: int, why: str) -> DocumentError:
        return DocumentError(f"line {line}: {why}")

    def heading(self, number: int, line: str) -> bool:
        if line.startswith("###") and not line.startswith("####"):
            match = _RULE.fullmatch(line)
            if match is None:
                raise self.fail(number, "a rule's heading reads `### 4.2 Title`")
            self.open_rule(number, int(match["section"]), int(match["number"]), (match["title"] or "").strip())
            return True
        if line.startswith("##") and not line.startswith("###"):
            match = _SECTION.fullmatch(line)
            if match is None:
                raise self.fail(number, "a section's heading reads `## 4. Title`")
            self.open_section(number, int(match["number"]), match["title"].strip())
            return True
        if line.startswith("#") and not line.startswith("##"):
            match = _TITLE.fullmatch(line)
            if match is None or self.title or self.sections or self.section is not None or self.intro:
                raise self.fail(number, "only the first line may be the document's title (`# Title`)")
            self.title = _limited(match["title"].strip(), MAX_TITLE, number, "the title")
            return True
        return False

    def open_section(self, line: int, number: int, title: str) -> None:
        self.close_section()
        if self.sections and number <= self.sections[-1].number:
            raise self.fail(line, f"section {number} comes after section {self.sections[-1].number}")
        self.section = (number, _limited(title, MAX_TITLE, line, "a section's title"), [])

    def open_rule(self, line: int, section: int, number: int, title: str) -> None:
        self.close_rule()
        if self.section is None or self.section[0] != section:
            where = f"section {self.section[0]}" if self.section is not None else "no section"
            raise self.fail(line, f"rule {section}.{number} stands under {where}; put it under `## {section}. Title`")
        rules = self.section[2]
        if rules and number <= rule_key(rules[-1].number)[1]:
            raise self.fail(line, f"rule {section}.{number} comes after rule {rules[-1].number}")
        if not title:
            raise self.fail(line, f"rule {section}.{number} needs a title after its number")
        self.count += 1
        if self.count > MAX_RULES:
            raise self.fail(line, f"a document has at most {MAX_RULES} rules")
        self.rule = _Open(f"{section}.{number}", _limited(title, MAX_TITLE, line, "a rule's title"), line, [])

    def close_rule(self) -> None:
        rule = self.rule
        if rule is None or self.section is None:
            return
        text = _tidy(rule.text)
        if not text:
            raise self.fail(rule.line, f"rule {rule.number} has no text")
        if len(text) > MAX_TEXT:
            raise self.fail(rule.line, f"rule {rule.number} is longer than {MAX_TEXT:,} characters")
        self.section[2].append(Rule(number=rule.number, title=rule.title, text=text, block=rule.block or ""))
        self.rule = None

    def close_section(self) -> None:
        self.close_rule()
        if self.section is not None:
            number, title, rules = self.section
            self.sections.append(Section(number=number, title=title, rules=tuple(rules)))
            self.section = None

    def text(self, number: int, line: str) -> None:
        unknown = unknown_placeholders(line)
        if unknown:
            raise self.fail(number, f"`{unknown[0][:60]}` names no option of the ruleset")
        if self.rule is not None:
            self.rule.text.append(line)
        elif self.section is not None:
            if line.strip():
                raise self.fail(number, "text under a section belongs to a rule: begin one with `### S.N Title`")
        else:
            self.intro.append(line)

    def block(self, line: int, lang: str, body: list[str], fence: str) -> None:
        """A fenced block: a ```rule block is its rule's mechanics; another is part of the text."""
        if lang.lower() != "rule":
            for text in (f"{fence}{lang}", *body, fence):
                self.text(line, text)
            return
        if self.rule is None:
            raise self.fail(line, "a ```rule block belongs under a rule's heading")
        if self.rule.block is not None:
            raise self.fail(line, f"rule {self.rule.number} has two ```rule blocks")
        source = "\n".join(body).strip("\n")
        if len(source) > MAX_BLOCK:
            raise self.fail(line, f"a rule block is at most {MAX_BLOCK:,} characters")
        self.rule.block = source


def _limited(text: str, limit: int, line: int, what: str) -> str:
    if len(text) > limit:
        raise DocumentError(f"line {line}: {what} is longer than {limit} characters")
    return text


@valueclass
class Fenced:
    """A fenced block of a text: its fence (```), the word after it (``rule``), its lines, whether it closed."""

    fence: str
    lang: str
    body: list[str]
    closed: bool


def read_lines(text: str) -> Iterator[tuple[int, str | Fenced]]:
    """A text's lines, numbered from 1, with each fenced block as one item at the line that opens it (a
    block runs to the next line that is its fence alone, or to the end when none is)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    index = 0
    while index < len(lines):
        number, line = index + 1, lines[index]
        index += 1
        fence = _FENCE.fullmatch(line.strip())
        if fence is None:
            yield number, line
            continue
        body: list[str] = []
        while index < len(lines) and lines[index].strip() != fence["fence"]:
            body.append(lines[index])
            index += 1
        closed = index < len(lines)
        index += 1
        yield number, Fenced(fence["fence"], fence["lang"], body, closed)


def parse_markdown(markdown: str) -> RuleDocument:
    """A document from its Markdown: ``# Title``, then ``## S. Section`` headings, each with its rules under
    ``### S.N Title`` headings; a rule's text follows its heading, and a fenced ```rule block is its
    mechanics. Raises ``DocumentError`` naming the line of the first problem."""
    if len(markdown) > MAX_DOCUMENT_LENGTH:
        raise DocumentError(f"a ruleset document is at most {MAX_DOCUMENT_LENGTH:,} characters")
    reader = _Reader()
    for number, line in read_lines(markdown):
        if isinstance(line, Fenced):
            if not line.closed:
                raise reader.fail(number, "the fenced block opened here is not closed")
            reader.block(number, line.lang, line.body, line.fence)
        elif not reader.heading(number, line.strip()):
            reader.text(number, line)
    reader.close_section()
    if not any(s.rules for s in reader.sections):
        raise DocumentError("the document has no rules: each is a `### S.N Title` heading under `## S. Title`")
    return RuleDocument(
        title=reader.title or DEFAULT_TITLE, intro=_tidy(reader.intro), sections=tuple(reader.sections)
    )


def to_markdown(document: RuleDocument) -> str:
    """The document as Markdown that ``parse_markdown`` reads back as the same document."""
    lines = [f"# {document.title}", ""]
    if document.intro:
        lines.extend([document.intro, ""])
    for section in document.sections:
        lines.extend([f"## {section.number}. {section.title}", ""])
        for rule in section.rules:
            lines.extend([f"### {rule.number} {rule.title}", "", rule.text, ""])
            if rule.block:
                lines.extend(["```rule", rule.block, "```", ""])
    return "\n".join(lines).rstrip("\n") + "\n"


@cache
def default_document() -> RuleDocument:
    """The round's own rules, restated (``data/rulesets/default.md``): every guild's first version."""
    return parse_markdown((RULESETS_DIR / "default.md").read_text(encoding="utf-8"))


def bound_options(document: RuleDocument) -> dict[str, list[str]]:
    """Each option the document binds, with the rules that bind it, in document order."""
    out: dict[str, list[str]] = {}
    for rule in document.rules():
        for path in slots(rule.text):
            out.setdefault(path, []).append(rule.number)
    return out
