"""The tables' Discord controls: buttons, the moves menu and the join form (each types a command's
text), the views that hold them, and what the slash commands offer as their options are typed.

Every control says which table it belongs to in its ``custom_id`` (``table:GUILD:wikipedia-1:join``),
so it keeps working after a restart (``discord.ui.DynamicItem``, registered with
``bot.add_dynamic_items``). Nothing here knows a game: each game describes its buttons
(``GameEngine.controls``) and its join form (``GameEngine.join_form``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.discord.cogs.base import line
from games.tables import lobby
from games.tables.engine import FormField, GameRuleError, MoveForm
from games.tables.i18n import DEFAULT, LANGUAGE_NAMES, LANGUAGES, normalise, tr
from games.tables.lobby import Table
from games.tables.options import option_hints
from games.tables.registry import GAMES, get_game

if TYPE_CHECKING:
    from bot.discord.cogs.tables import TableDesk

MAX_OPTIONS = 25
"""Discord's limit of options in a select menu (and of autocomplete choices)."""
OPTION_LIMIT = 100

_GUILD = r"(?P<guild>[0-9]{1,20})"
_TABLE = r"(?P<table>[a-z][a-z0-9_]{0,30}-[0-9]{1,9})"
BUTTON_TEMPLATE = rf"table:{_GUILD}:{_TABLE}:(?P<action>join|leave|start|ai-up|ai-down|hand|pass|end|end-table)"
MOVE_TEMPLATE = rf"table:{_GUILD}:{_TABLE}:move"
FORMS_TEMPLATE = rf"table:{_GUILD}:{_TABLE}:forms"
CONTROL_TEMPLATE = rf"table:{_GUILD}:{_TABLE}:do:(?P<command>[^:]{{1,50}})"
_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}

_BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "join": ("button.join", discord.ButtonStyle.success),
    "leave": ("button.leave", discord.ButtonStyle.secondary),
    "start": ("button.start", discord.ButtonStyle.primary),
    "ai-down": ("button.ai_down", discord.ButtonStyle.secondary),
    "ai-up": ("button.ai_up", discord.ButtonStyle.secondary),
    "hand": ("hand.button", discord.ButtonStyle.primary),
    "pass": ("button.pass", discord.ButtonStyle.secondary),
    "end": ("button.end_turn", discord.ButtonStyle.secondary),
    "end-table": ("button.end_table", discord.ButtonStyle.danger),
}
"""Each button's label (a text of the table's language) and style."""
_TEXTS = {
    "join": "!join",
    "leave": "!leave",
    "start": "!start",
    "hand": "!hand",
    "pass": "!pass",
    "end": "!end",
    "end-table": "!end-table",
}
"""The command text each button types (``ai-up``/``ai-down`` type ``!ai N`` from the table's count)."""


# --- moves in a menu -------------------------------------------------------------------------


def spread(moves: list[str], limit: int = MAX_OPTIONS) -> list[str]:
    """At most ``limit`` of ``moves``, in their order, spread fairly over their kinds.

    Moves are grouped by their first word (``section``, ``fix``, ``give``...), then by the next
    word inside a group, and the room is shared round-robin between the groups at each level, so
    a hand with forty ways to write a section still leaves room for every fix and every gift.
    """
    picked = _spread([(i, m.split()) for i, m in enumerate(moves)], limit, 0)
    return [moves[i] for i in sorted(picked)]


def _spread(moves: list[tuple[int, list[str]]], limit: int, depth: int) -> list[int]:
    if len(moves) <= limit:
        return [i for i, _ in moves]
    if limit <= 0:
        return []
    groups: dict[str, list[tuple[int, list[str]]]] = {}
    for index, words in moves:
        groups.setdefault(words[depth] if depth < len(words) else "", []).append((index, words))
    if len(groups) == 1:
        members = next(iter(groups.values()))
        if all(depth >= len(words) for _, words in members):
            return [i for i, _ in members[:limit]]
        return _spread(members, limit, depth + 1)
    quotas = dict.fromkeys(groups, 0)
    left = limit
    while left > 0:
        for key, members in groups.items():
            if left > 0 and quotas[key] < len(members):
                quotas[key] += 1
                left -= 1
    out: list[int] = []
    for key, members in groups.items():
        out += _spread(members, quotas[key], depth + 1)
    return out


def reads(table: Table, text: str) -> bool:
    """Whether the table's game reads ``text`` as a move (whoever may play it): a button for it then."""
    if table.board is None:
        return False
    engine = lobby.engine_of(table)
    state = lobby.game_state(table)
    try:
        engine.parse_action(state, engine.seats(state)[0], text)
    except GameRuleError:
        return False
    return True


# --- the buttons and the menu (they survive restarts) -----------------------------------------


class TableButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    """A table's button: its guild, table and action are all in its ``custom_id``."""

    def __init__(
        self,
        guild: int,
        table: str,
        action: str,
        *,
        row: int | None = None,
        label: str | None = None,
        lang: str = DEFAULT,
    ) -> None:
        key, style = _BUTTONS[action]
        label = (label or tr(lang, key))[:80]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"table:{guild}:{table}:{action}"), row=row
        )
        self.guild_id = guild
        self.table = table
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> TableButton:
        return cls(int(match["guild"]), match["table"], match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        desk: TableDesk = interaction.client.desk
        if self.action == "join":
            form = await desk.join_form(self.guild_id, self.table)
            if form is not None:  # the game asks what the seat brings: a form only the presser sees
                await interaction.response.send_modal(form)
                return
        text = _TEXTS.get(self.action)
        if text is None:  # the AI buttons: one computer player more or fewer than now
            found = await desk.find(self.guild_id, self.table)
            count = len(found.ai_seats) if found is not None else 0
            text = f"!ai {max(0, count + (1 if self.action == 'ai-up' else -1))}"
        await desk.click(interaction, self.guild_id, self.table, text)


class ControlButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CONTROL_TEMPLATE):
    """A button the game describes (``GameEngine.controls``): it types the game's command for its presser.

    Its answer is private (a secret vote stays secret); what the move does is posted in the thread.
    """

    def __init__(
        self, guild: int, table: str, command: str, *, label: str | None = None, style: str = "secondary"
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=(label or command)[:80],
                style=_STYLES.get(style, discord.ButtonStyle.secondary),
                custom_id=f"table:{guild}:{table}:do:{command}",
            )
        )
        self.guild_id = guild
        self.table = table
        self.command = command

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> ControlButton:
        label = item.label if isinstance(item, discord.ui.Button) else None
        return cls(int(match["guild"]), match["table"], match["command"], label=label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        desk: TableDesk = interaction.client.desk
        await desk.click(interaction, self.guild_id, self.table, "!" + self.command)


def _one_pick(
    custom_id: str, options: list[discord.SelectOption] | None, placeholder: str | None
) -> discord.ui.Select[Any]:
    """A menu of which one option is picked (a member's moves, or their moves made of several picks)."""
    return discord.ui.Select(
        custom_id=custom_id, options=options or [], placeholder=placeholder, min_values=1, max_values=1
    )


def _picks_of(item: discord.ui.Item[Any]) -> tuple[list[discord.SelectOption], str | None]:
    """A restored menu's options and placeholder, as it was sent."""
    if isinstance(item, discord.ui.Select):
        return list(item.options), item.placeholder
    return [], None


class MoveSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=MOVE_TEMPLATE):
    """The menu of a member's legal moves (in their private "My hand" answer): a choice is its text."""

    def __init__(
        self,
        guild: int,
        table: str,
        options: list[discord.SelectOption] | None = None,
        *,
        placeholder: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(_one_pick(f"table:{guild}:{table}:move", options, placeholder), row=row)
        self.guild_id = guild
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> MoveSelect:
        options, placeholder = _picks_of(item)
        return cls(int(match["guild"]), match["table"], options, placeholder=placeholder)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        desk: TableDesk = interaction.client.desk
        values = self.item.values
        if not values:
            lang = await desk.language(self.guild_id, self.table, interaction)
            await interaction.response.send_message(tr(lang, "menu.pick_a_move"), ephemeral=True)
            return
        await desk.click(interaction, self.guild_id, self.table, "!" + values[0])


class FormSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=FORMS_TEMPLATE):
    """The menu of a member's moves made of several picks (``GameEngine.move_forms``, e.g. a Move's
    cards), in their private "My hand" answer: a choice opens that move's form as it stands now."""

    def __init__(
        self,
        guild: int,
        table: str,
        options: list[discord.SelectOption] | None = None,
        *,
        placeholder: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(_one_pick(f"table:{guild}:{table}:forms", options, placeholder), row=row)
        self.guild_id = guild
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> FormSelect:
        options, placeholder = _picks_of(item)
        return cls(int(match["guild"]), match["table"], options, placeholder=placeholder)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        desk: TableDesk = interaction.client.desk
        values = self.item.values
        form = await desk.move_form(self.guild_id, self.table, interaction.user, values[0]) if values else None
        if form is None:
            found = await desk.find(self.guild_id, self.table)
            if found is None:
                lang, button = DEFAULT, tr(DEFAULT, "hand.button")
            else:
                lang, button = found.lang, lobby.engine_of(found).private_words(found.lang).button
            await interaction.response.send_message(tr(lang, "menu.not_open", button=button), ephemeral=True)
            return
        await interaction.response.send_modal(MoveFormModal(self.guild_id, self.table, form))


class MoveFormModal(discord.ui.Modal):
    """A move's form (``MoveForm``): a menu per field, several picks each; sending it types the move's
    command followed by every value picked, down the same path as typed text."""

    def __init__(self, guild: int, table: str, form: MoveForm) -> None:
        title = form.label if len(form.label) <= 45 else form.label[:44] + "…"
        super().__init__(title=title, custom_id=f"table:{guild}:{table}:move-form", timeout=15 * 60)
        self.guild_id = guild
        self.table = table
        self.form = form
        self.menus: list[discord.ui.Select[Any]] = []
        for field in form.fields[:5]:  # Discord's limit of a form's fields
            options = [discord.SelectOption(label=label[:100], value=value[:100]) for label, value in field.choices]
            options = options[:MAX_OPTIONS]
            menu: discord.ui.Select[Any] = discord.ui.Select(
                custom_id=field.key,
                options=options,
                placeholder=field.placeholder[:150] or None,
                min_values=0,
                max_values=max(1, min(field.max_values, len(options))),
                required=False,
            )
            self.menus.append(menu)
            self.add_item(discord.ui.Label(text=field.label[:45], component=menu))

    def command(self) -> str:
        picked = [value for menu in self.menus for value in menu.values]
        return line("!" + self.form.command, *picked)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        desk: TableDesk = interaction.client.desk
        await desk.click(interaction, self.guild_id, self.table, self.command())


class JoinForm(discord.ui.Modal):
    """What a game lets a seat bring (``GameEngine.join_form``), asked when **Join** is pressed.

    A field with choices is a menu, any other a text box. Submitting types ``!join key:value ...``
    for the member (only they see the form and the private answer), down the same path as text.
    """

    def __init__(self, guild: int, table: Table, fields: tuple[FormField, ...]) -> None:
        title = tr(table.lang, "lobby.join_form", table=table.name)[:45]
        super().__init__(title=title, custom_id=f"table:{guild}:{table.name}:join-form", timeout=15 * 60)
        self.guild_id = guild
        self.table = table.name
        self.inputs: dict[str, discord.ui.Select[Any] | discord.ui.TextInput[Any]] = {}
        for field in fields[:5]:  # Discord's limit of a form's fields
            component: discord.ui.Select[Any] | discord.ui.TextInput[Any]
            if field.choices:
                options = [discord.SelectOption(label=label[:100], value=value[:100]) for label, value in field.choices]
                component = discord.ui.Select(
                    custom_id=field.key,
                    options=options[:MAX_OPTIONS],
                    placeholder=field.placeholder[:150] or None,
                    min_values=1 if field.required else 0,
                    max_values=1,
                    required=field.required,
                )
            else:
                component = discord.ui.TextInput(
                    custom_id=field.key,
                    placeholder=field.placeholder[:100] or None,
                    required=field.required,
                    max_length=OPTION_LIMIT,
                )
            self.inputs[field.key] = component
            self.add_item(discord.ui.Label(text=field.label[:45], component=component))

    def command(self) -> str:
        """The ``!join`` text the form's answers make; a field left empty brings nothing for it."""
        words = []
        for key, component in self.inputs.items():
            if isinstance(component, discord.ui.Select):
                value = component.values[0] if component.values else ""
            else:
                value = component.value
            value = "-".join(value.split())  # one word: the text path reads `key:value` words
            if value:
                words.append(f"{key}:{value}")
        return line("!join", *words)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        desk: TableDesk = interaction.client.desk
        await desk.click(interaction, self.guild_id, self.table, self.command())


def lobby_view(guild: int, table: Table) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("join", "leave", "start"):
        view.add_item(TableButton(guild, table.name, action, row=0, lang=table.lang))
    for action in ("ai-down", "ai-up", "end-table"):
        view.add_item(TableButton(guild, table.name, action, row=1, lang=table.lang))
    return view


def board_view(guild: int, table: Table) -> discord.ui.View:
    """**My hand**, then the buttons the game describes for this moment, then the moderators' button."""
    view = discord.ui.View(timeout=None)
    words = lobby.engine_of(table).private_words(table.lang)
    view.add_item(TableButton(guild, table.name, "hand", row=0, label=words.button))
    if table.board is not None:
        engine = lobby.engine_of(table)
        for control in engine.controls(lobby.game_state(table), table.lang)[:9]:
            view.add_item(ControlButton(guild, table.name, control.command, label=control.label, style=control.style))
    view.add_item(TableButton(guild, table.name, "end-table", row=None, lang=table.lang))
    return view


def moves_view(guild: int, table: Table, moves: list[str], forms: tuple[MoveForm, ...] = ()) -> discord.ui.View | None:
    """The menu of the member's moves, the game's buttons among them and the menu of the moves that
    open a form (a Move's cards), for their eyes only; None: no move."""
    controls = []
    if table.board is not None:
        offered = lobby.engine_of(table).controls(lobby.game_state(table), table.lang)
        controls = [c for c in offered if c.command in moves]
    words = {c.command for c in controls}
    menu = [m for m in moves if m not in words and len(m) <= OPTION_LIMIT]
    if not menu and not controls and not forms:
        return None
    view = discord.ui.View(timeout=None)
    if menu:
        shown = spread(menu)
        lang = table.lang
        whole = len(shown) == len(menu)
        placeholder = (
            tr(lang, "menu.your_move") if whole else tr(lang, "menu.your_move_some", shown=len(shown), total=len(menu))
        )
        options = [discord.SelectOption(label=m, value=m) for m in shown]
        view.add_item(MoveSelect(guild, table.name, options, placeholder=placeholder, row=0))
    for control in controls[:5]:
        button = ControlButton(guild, table.name, control.command, label=control.label, style=control.style)
        button.row = 1
        view.add_item(button)
    if forms:
        picks = [discord.SelectOption(label=f.label[:OPTION_LIMIT], value=f.command[:OPTION_LIMIT]) for f in forms]
        placeholder = tr(table.lang, "menu.pick_cards")
        view.add_item(FormSelect(guild, table.name, picks[:MAX_OPTIONS], placeholder=placeholder, row=2))
    return view


# --- what slash commands offer as they are typed ----------------------------------------------


def member_lang(interaction: discord.Interaction[Any] | None) -> str | None:
    """The language of the member's Discord client, when the tables' texts exist in it (else None)."""
    if interaction is None:
        return None
    code = str(interaction.locale.value)
    return "en" if code.startswith("en") else normalise(code) if code in LANGUAGES else None


def _typed_game(interaction: discord.Interaction[Any]) -> Any:
    """The engine of the game already chosen in the slash command being typed, or None."""
    chosen = getattr(interaction.namespace, "game", None)
    try:
        return get_game(chosen) if isinstance(chosen, str) and chosen else None
    except GameRuleError:
        return None


def option_choices(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    """``/play options:``: the game's ``key:value`` words, completed as they are typed, with their defaults."""
    engine = _typed_game(interaction)
    if engine is None:
        return []
    lang = normalise(str(getattr(interaction.namespace, "lang", "") or "")) or member_lang(interaction) or "en"
    lang = lang if lang in LANGUAGES else "en"
    return [app_commands.Choice(name=shown, value=value) for shown, value in option_hints(engine, current, lang)]


def lang_choices(interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
    """``/play lang:``: the languages of the chosen game (every language the tables speak before one is)."""
    engine = _typed_game(interaction)
    codes = engine.languages if engine is not None else LANGUAGES
    typed = current.strip().casefold()
    return [
        app_commands.Choice(name=f"{LANGUAGE_NAMES.get(code, code)} ({code})", value=code)
        for code in codes
        if typed in code.casefold() or typed in LANGUAGE_NAMES.get(code, code).casefold()
    ]


def game_choices(current: str) -> list[app_commands.Choice[str]]:
    typed = current.strip().casefold()
    return [
        app_commands.Choice(name=f"{engine.title} ({name})"[:OPTION_LIMIT], value=name)
        for name, engine in sorted(GAMES.items())
        if typed in name or typed in engine.title.casefold()
    ][:MAX_OPTIONS]
