"""The card library's Discord controls: a card's Approve / Reject / Comment buttons, the forms they
and ``/card new`` open, and the names ``/card`` offers as they are typed.

Each control types a command's text (``!card approve #12 v2``) and sends it down the same path as
typed text. A button names its guild, card and version in its ``custom_id``
(``card:GUILD:12:2:approve``), so it works on old messages and after a restart
(``discord.ui.DynamicItem``); pressed on a version that was since replaced, it is refused and says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from games.ictc.cards import MAX_NAME, MAX_TEXT, CardType, name_key
from games.ictc.state import LibraryState

if TYPE_CHECKING:
    from bot.discord.cogs.cards import CardDesk

BUTTON_TEMPLATE = (
    r"card:(?P<guild>[0-9]{1,20}):(?P<design>[0-9]{1,9}):(?P<version>[0-9]{1,4}):(?P<action>approve|reject|comment)"
)
_BUTTONS = {
    "approve": ("Approve", discord.ButtonStyle.success),
    "reject": ("Reject", discord.ButtonStyle.danger),
    "comment": ("Comment", discord.ButtonStyle.secondary),
}
MAX_CHOICES = 25
BARE_DETAIL = {
    CardType.SOLDIER: "cr",
    CardType.POWER: "output",
    CardType.ACTION: "restrictions",
    CardType.FLASH: "restrictions",
}
DETAILS = {
    CardType.SOLDIER: ("CR, keywords, restrictions", "cr: 2\nkeywords: Haste, Armor 1\nrestrictions: Cannot block"),
    CardType.POWER: ("Output, keywords, restrictions", "output: R  (or 2G, or R/G)\nrestrictions: ..."),
    CardType.ACTION: ("Keywords, restrictions (optional)", "keywords: ...\nrestrictions: Only on your turn"),
    CardType.FLASH: ("Keywords, restrictions (optional)", "restrictions: Only when a Soldier attacks"),
}


def _desk(interaction: discord.Interaction[Any]) -> CardDesk:
    desk: CardDesk = interaction.client.cards
    return desk


class CardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    """A card's button: guild, card, version and action live in its ``custom_id``."""

    def __init__(self, guild: int, design: int, version: int, action: str) -> None:
        label, style = _BUTTONS[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"card:{guild}:{design}:{version}:{action}")
        )
        self.guild_id = guild
        self.design = design
        self.version = version
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> CardButton:
        return cls(int(match["guild"]), int(match["design"]), int(match["version"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        ref = f"#{self.design} v{self.version}"
        if self.action == "approve":
            await _desk(interaction).click(interaction, self.guild_id, f"!card approve {ref}")
            return
        await interaction.response.send_modal(NoteForm(self.guild_id, self.design, self.version, self.action))


class NoteForm(discord.ui.Modal):
    """Why a card is rejected (optional), or a comment on it."""

    def __init__(self, guild: int, design: int, version: int, action: str) -> None:
        title = f"Reject card #{design}" if action == "reject" else f"Comment on card #{design}"
        super().__init__(title=title, custom_id=f"card:{guild}:{design}:{version}:{action}-form", timeout=15 * 60)
        self.guild_id = guild
        self.design = design
        self.version = version
        self.action = action
        self.note: discord.ui.TextInput[Any] = discord.ui.TextInput(
            custom_id="note",
            style=discord.TextStyle.paragraph,
            required=action == "comment",
            max_length=200 if action == "reject" else 500,
            placeholder="Too cheap for what it does..." if action == "reject" else "What do you think?",
        )
        self.add_item(discord.ui.Label(text="Why (optional)" if action == "reject" else "Comment", component=self.note))

    def command(self) -> str:
        note = " ".join(self.note.value.split())
        head = f"!card {self.action} #{self.design} v{self.version}"
        return f"{head}: {note}" if note else head

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        await _desk(interaction).click(interaction, self.guild_id, self.command())


class CardForm(discord.ui.Modal):
    """``/card new``: a card's fields in a form; sending it types ``!card new ...`` for the member."""

    def __init__(self, guild: int, kind: CardType) -> None:
        super().__init__(title=f"New {kind.display} card", custom_id=f"card:{guild}:new:{kind.value}", timeout=30 * 60)
        self.guild_id = guild
        self.kind = kind
        self.inputs: dict[str, discord.ui.TextInput[Any]] = {}
        label, placeholder = DETAILS[kind]
        for key, text, style, required, limit, hint in (
            ("name", "Name", discord.TextStyle.short, True, MAX_NAME, "Fire Imp"),
            ("cost", "Cost", discord.TextStyle.short, True, 40, "R+1, 2K+4, 2R+X, XK or 0"),
            ("colours", "Colours (empty: the cost's)", discord.TextStyle.short, False, 40, "R, or R G, or none"),
            ("text", "What it does", discord.TextStyle.paragraph, True, MAX_TEXT, "Deal 2 damage to a Soldier."),
            (
                "details",
                label,
                discord.TextStyle.paragraph,
                kind in {CardType.SOLDIER, CardType.POWER},
                400,
                placeholder,
            ),
        ):
            component: discord.ui.TextInput[Any] = discord.ui.TextInput(
                custom_id=key, style=style, required=required, max_length=limit, placeholder=hint[:100]
            )
            self.inputs[key] = component
            self.add_item(discord.ui.Label(text=text, component=component))

    def command(self) -> str:
        values = {key: component.value.strip() for key, component in self.inputs.items()}
        lines = [f"!card new {' '.join(values['name'].split())}", f"type: {self.kind.value}", f"cost: {values['cost']}"]
        if values["colours"]:
            lines.append(f"colours: {values['colours']}")
        lines.append(f"text: {values['text']}")
        details = values["details"]
        if details and ":" not in details:
            # a bare value in the last box: the CR of a Soldier, the output of a Power card, else restrictions
            key = BARE_DETAIL[self.kind]
            details = f"{key}: {details}"
        if details:
            lines.extend(part.strip() for part in details.replace("|", "\n").split("\n") if part.strip())
        return "\n".join(lines)

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        await _desk(interaction).click(interaction, self.guild_id, self.command())


def review_view(guild: int, design: int, version: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for action in ("approve", "reject", "comment"):
        view.add_item(CardButton(guild, design, version, action))
    return view


def card_choices(state: LibraryState, member: str, current: str) -> list[app_commands.Choice[str]]:
    """``/card show card:``: the cards the member can see whose name starts with (or holds) what is typed."""
    typed = name_key(current.removeprefix("#"))
    seen = [d for d in state.designs.values() if d.visible or d.owner == member]
    first = [d for d in seen if name_key(d.name).startswith(typed) or str(d.id) == typed]
    rest = [d for d in seen if d not in first and typed in name_key(d.name)]
    found = sorted(first, key=lambda d: (d.owner != member, d.name.casefold())) + rest
    return [
        app_commands.Choice(name=f"{d.name} (#{d.id}, {state.name_of(d.owner)})"[:100], value=f"#{d.id}")
        for d in found[:MAX_CHOICES]
    ]
