"""The table's wiring, read from the ``[buttons]``, ``[lights]`` and ``[buzzer]`` sections of a
TOML table config (``hardware/table.toml`` is the sample).

The same file carries other sections (``[camera]``, ``[zones]``, ``[service]``...) that belong
to other parts of the referee: they are ignored here. Inside the three sections this module
owns, everything is checked, and every problem is one line that names the file, the section
and the key::

    table.toml: [buttons.seat2] pon = 17: GPIO17 is already the seat 0 chii button

Pins are BCM GPIO numbers as printed by gpiozero's ``pinout`` (``17``, or ``"GPIO17"``), not
physical header positions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.events import CALLS
from table.config import ConfigError, read_toml

SEATS = (0, 1, 2, 3)
SAMPLE_CONFIG = Path(__file__).with_name("table.toml")

# The 40-pin header brings out GPIO 0-27. GPIO0/1 are the HAT ID EEPROM's I2C bus (ID_SD/ID_SC),
# which the firmware probes at boot: a button there can confuse HAT detection.
HEADER_GPIOS = range(2, 28)
_RESERVED = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)"}
# GPIO2/3 (I2C1 SDA/SCL) carry 1.8 kΩ pull-ups soldered on the board; a 50 kΩ internal
# pull-down can never pull them low.
FIXED_PULL_UP = (2, 3)


class WiringError(RefereeError):
    """One or more problems in a table config's wiring sections.

    ``problems`` holds one line per problem; ``str()`` joins them with newlines so the CLI
    prints each on its own line.
    """

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class ButtonWiring:
    """One call button: ``seat`` 0-3, ``call`` (chii/pon/kan/ron) and its BCM ``pin``."""

    seat: int
    call: str
    pin: int


@dataclass(frozen=True)
class DebounceSettings:
    """How raw contact edges become presses (see :mod:`hardware.debounce`).

    ``debounce``: seconds; a contact that re-closes less than this after opening is still the
    same press (contact bounce).
    ``chatter_presses`` within ``chatter_window`` seconds: faster than a finger can press, so
    the input is chattering (a broken switch or a loose wire) and is reported as a fault; so is
    a contact moving as often as that many presses and their releases, presses or not.
    ``chatter_window`` is also the longest a single bounce may last, and how long the contact
    must be still (no edge) before a quickly repeated press of the same button is let through.
    ``chatter_run``: seconds after a press that the contact may keep moving, never still for
    ``chatter_window``, before another press makes the input chattering even at a rate a
    finger could manage.
    ``recover``: seconds without any edge after which a chattering input (or a stuck one,
    once released) counts again.
    ``stuck``: seconds a contact may stay closed after a press; closed longer, the button is
    stuck down and its press is dropped, no call. Longer than ``sign_hold_s`` and
    ``referee_call_s``, the holds a player makes on purpose.
    """

    debounce: float = 0.005
    chatter_presses: int = 5
    chatter_window: float = 0.25
    chatter_run: float = 2.0
    recover: float = 2.0
    stuck: float = 4.0


@dataclass(frozen=True)
class LightSettings:
    """How the seat lights and the buzzer show rulings (see :class:`hardware.lights.SeatLights`).

    ``winner``: seconds a winning claimant's light stays on. ``blink``: seconds a rejected
    claimant's (or a violator's) light blinks, at ``blink_hz``. ``pwm``: dimmable lights
    (PWMLED) that fade in and out instead of switching hard.
    ``beep``: seconds per buzzer beep, ``beeps`` per violation.
    """

    active_high: bool = True
    pwm: bool = False
    winner: float = 2.0
    blink: float = 1.5
    blink_hz: float = 4.0
    buzzer_active_high: bool = True
    beep: float = 0.1
    beeps: int = 2
    #: seconds per on-off cycle of a seat calling for a referee
    call_period: float = 1.0


@dataclass(frozen=True)
class TableWiring:
    """Everything :class:`~hardware.SeatButtons` and :class:`~hardware.SeatLights` need.

    ``buttons``: the 16 call buttons, seat by seat in chii, pon, kan, ron order.
    ``pull``: ``"up"`` (buttons switch to GND, the usual), ``"down"`` (buttons switch to 3V3)
    or ``"none"`` (external resistors; then ``active_state`` says which level is pressed:
    True = high). ``lights``: seat -> pin of its light (seats may have none). ``buzzer``: pin
    or None. ``source``: where it was read from, for messages.
    """

    buttons: tuple[ButtonWiring, ...]
    pull: str = "up"
    active_state: bool | None = None
    lights: dict[int, int] = field(default_factory=dict)
    buzzer: int | None = None
    debounce: DebounceSettings = DebounceSettings()
    light: LightSettings = LightSettings()
    source: str = "<table config>"
    #: the buttons a seat holds together to call for a referee (empty: no such call), and
    #: for how many seconds (see :mod:`hardware.call_for_referee`)
    referee_call: tuple[str, ...] = ("chii", "kan")
    referee_call_hold: float = 2.0
    #: seconds a player holds their ron button to sign the score sheet at a game's end
    #: (see :mod:`hardware.hold_to_sign`)
    sign_hold: float = 2.0

    def button(self, seat: int, call: str) -> ButtonWiring:
        for b in self.buttons:
            if b.seat == seat and b.call == call:
                return b
        raise KeyError((seat, call))

    @property
    def pressed_level(self) -> bool:
        """The pin level (True = high) of a pressed button."""
        if self.pull == "up":
            return False
        if self.pull == "down":
            return True
        return bool(self.active_state)


# -- loading ----------------------------------------------------------------------------------

_BUTTON_KEYS = {"pull", "active_state", "debounce_ms", "chatter_presses", "chatter_window_ms",
                "chatter_run_s", "recover_s", "stuck_s", "referee_call", "referee_call_s",
                "sign_hold_s"}
_LIGHT_KEYS = {"active_high", "pwm", "winner_s", "blink_s", "blink_hz"}
_BUZZER_KEYS = {"pin", "active_high", "beep_s", "beeps"}
_SEAT_NAMES = {f"seat{seat}" for seat in SEATS}


def load_table_config(path: str | Path) -> TableWiring:
    """Read and check the wiring sections of the TOML table config at ``path``.

    Raises :class:`WiringError` (a :class:`~referee.errors.RefereeError`) listing every problem,
    one line each; sections other than ``[buttons]``, ``[lights]`` and ``[buzzer]`` are left
    for their owners.
    """
    path = Path(path)
    try:
        data = read_toml(path, where=str(path))
    except ConfigError as exc:
        raise WiringError([str(exc)]) from None
    return parse_table_config(data, str(path))


def parse_table_config(data: dict[str, Any], source: str = "<table config>") -> TableWiring:
    """Check already-decoded TOML (a dict) as :func:`load_table_config` does."""
    return _Parser(source).parse(data)


class _Parser:
    def __init__(self, source: str):
        self.source = source
        self.problems: list[str] = []
        self.used: dict[int, str] = {}

    def problem(self, where: str, text: str) -> None:
        self.problems.append(f"{self.source}: {where}: {text}")

    # -- typed getters: report and return the default on a bad value ---------------------
    def number(self, table: dict, section: str, key: str, default: float, *,
               scale: float = 1.0, minimum: float = 0.0, maximum: float | None = None,
               exclusive: bool = True) -> float:
        if key not in table:
            return default
        value = table[key]
        bad = isinstance(value, bool) or not isinstance(value, (int, float))
        if not bad:
            bad = value <= minimum if exclusive else value < minimum
            bad = bad or (maximum is not None and value > maximum)
        if bad:
            rng = f"more than {minimum:g}" if exclusive else f"at least {minimum:g}"
            if maximum is not None:
                rng += f" and at most {maximum:g}"
            self.problem(f"[{section}] {key} = {_show(value)}", f"must be a number {rng}")
            return default
        return value * scale

    def count(self, table: dict, section: str, key: str, default: int, minimum: int) -> int:
        if key not in table:
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.problem(f"[{section}] {key} = {_show(value)}",
                         f"must be a whole number, at least {minimum}")
            return default
        return value

    def flag(self, table: dict, section: str, key: str, default: bool) -> bool:
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, bool):
            self.problem(f"[{section}] {key} = {_show(value)}", "must be true or false")
            return default
        return value

    def unknown_keys(self, table: dict, section: str, known: set[str], seat_keys: bool,
                     what: str) -> None:
        for key in table:
            if key in known:
                continue
            if seat_keys and key in _SEAT_NAMES:
                continue
            if seat_keys and _looks_like_seat(key):
                self.problem(f"[{section}] {key}", f"unknown seat {key!r}: seats are seat0 to "
                             "seat3, numbered in turn order")
            else:
                self.problem(f"[{section}] {key}", f"unknown key (expected {what})")

    def pin(self, value: Any, where: str, what: str, pull: str | None = None) -> int | None:
        """Check one pin number and claim it for ``what``; report and return None if bad."""
        number = _pin_number(value)
        if number is None:
            self.problem(f"{where} = {_show(value)}",
                         "a pin is a BCM GPIO number such as 17 (or \"GPIO17\")")
            return None
        if number in _RESERVED:
            self.problem(f"{where} = {_show(value)}",
                         f"GPIO{number} is reserved for {_RESERVED[number]}; use GPIO 2-27")
            return None
        if number not in HEADER_GPIOS:
            self.problem(f"{where} = {_show(value)}",
                         f"GPIO{number} does not exist on the 40-pin header (GPIO 2-27)")
            return None
        if pull == "down" and number in FIXED_PULL_UP:
            self.problem(f"{where} = {_show(value)}",
                         f"GPIO{number} has a fixed 1.8k pull-up on the board, so pull = "
                         "\"down\" cannot work there; wire the button to GND with "
                         "pull = \"up\", or use another pin")
            return None
        if number in self.used:
            self.problem(f"{where} = {_show(value)}",
                         f"GPIO{number} is already the {self.used[number]}")
            return None
        self.used[number] = what
        return number

    # -- sections ------------------------------------------------------------------------
    def parse(self, data: dict[str, Any]) -> TableWiring:
        buttons_t = data.get("buttons")
        if buttons_t is None:
            self.problems.append(f"{self.source}: no [buttons] section (see hardware/table.toml "
                                 "for a sample)")
            raise WiringError(self.problems)
        if not isinstance(buttons_t, dict):
            self.problems.append(f"{self.source}: buttons must be a [buttons] table")
            raise WiringError(self.problems)
        lights_t = data.get("lights", {})
        buzzer_t = data.get("buzzer")
        for name, t in (("lights", lights_t), ("buzzer", buzzer_t)):
            if t is not None and not isinstance(t, dict):
                self.problems.append(f"{self.source}: {name} must be a [{name}] table")
                raise WiringError(self.problems)

        pull, active_state, debounce = self.button_settings(buttons_t)
        referee_call, hold = self.referee_call(buttons_t)
        sign_hold = self.number(buttons_t, "buttons", "sign_hold_s", TableWiring(buttons=()).sign_hold,
                                minimum=0.5, maximum=30, exclusive=False)
        longest = max([sign_hold] + ([hold] if referee_call else []))
        what = "sign_hold_s" if longest == sign_hold else "referee_call_s"
        if debounce.stuck <= longest:
            if "stuck_s" in buttons_t:
                self.problem(f"[buttons] stuck_s = {_show(buttons_t['stuck_s'])}",
                             f"must be longer than {what} ({longest:g} s): a button held that "
                             "long on purpose would be taken for a stuck one")
            else:
                self.problem(f"[buttons] {what} = {_show(buttons_t[what])}",
                             f"must be shorter than stuck_s ({debounce.stuck:g} s, the "
                             "default): set a longer stuck_s too")
        buttons = self.seat_buttons(buttons_t, pull)
        lights, light = self.lights(lights_t)
        buzzer, light = self.buzzer(buzzer_t, light)
        if self.problems:
            raise WiringError(self.problems)
        return TableWiring(buttons=tuple(buttons), pull=pull, active_state=active_state,
                           lights=lights, buzzer=buzzer, debounce=debounce, light=light,
                           source=self.source, referee_call=referee_call,
                           referee_call_hold=hold, sign_hold=sign_hold)

    def button_settings(self, t: dict) -> tuple[str, bool | None, DebounceSettings]:
        self.unknown_keys(t, "buttons", _BUTTON_KEYS, True,
                          "pull, active_state, debounce_ms, chatter_presses, chatter_window_ms, "
                          "chatter_run_s, recover_s, stuck_s, referee_call, referee_call_s, "
                          "sign_hold_s or seat0-seat3")
        pull = t.get("pull", "up")
        if pull not in ("up", "down", "none"):
            self.problem(f"[buttons] pull = {_show(pull)}",
                         'must be "up" (buttons switch to GND), "down" (buttons switch to 3V3) '
                         'or "none" (external resistors, with active_state)')
            pull = "up"
        active_state: bool | None = None
        if "active_state" in t:
            value = t["active_state"]
            if pull != "none":
                self.problem(f"[buttons] active_state = {_show(value)}",
                             f'only with pull = "none"; with pull = "{pull}" a pressed button '
                             f'reads {"low" if pull == "up" else "high"}')
            elif value not in ("low", "high"):
                self.problem(f"[buttons] active_state = {_show(value)}",
                             'must be "low" or "high" (the level of a pressed button)')
            else:
                active_state = value == "high"
        elif pull == "none":
            self.problem('[buttons] pull = "none"',
                         'needs active_state = "low" or "high" (the level of a pressed button)')
        d = DebounceSettings()
        debounce = DebounceSettings(
            debounce=self.number(t, "buttons", "debounce_ms", d.debounce, scale=1e-3,
                                 minimum=0.0, maximum=100.0, exclusive=False),
            chatter_presses=self.count(t, "buttons", "chatter_presses", d.chatter_presses, 2),
            chatter_window=self.number(t, "buttons", "chatter_window_ms", d.chatter_window,
                                       scale=1e-3, maximum=10_000.0),
            chatter_run=self.number(t, "buttons", "chatter_run_s", d.chatter_run, maximum=3600),
            recover=self.number(t, "buttons", "recover_s", d.recover, maximum=3600),
            stuck=self.number(t, "buttons", "stuck_s", d.stuck, maximum=3600),
        )
        if debounce.chatter_window <= debounce.debounce and "chatter_window_ms" in t:
            self.problem(f"[buttons] chatter_window_ms = {_show(t['chatter_window_ms'])}",
                         "must be longer than debounce_ms")
        return pull, active_state, debounce

    def referee_call(self, t: dict) -> tuple[tuple[str, ...], float]:
        d = TableWiring(buttons=())
        hold = self.number(t, "buttons", "referee_call_s", d.referee_call_hold, minimum=0.5,
                           maximum=30, exclusive=False)
        if "referee_call" not in t:
            return d.referee_call, hold
        value = t["referee_call"]
        if not isinstance(value, list) or any(c not in CALLS for c in value) or \
                len(set(value)) != len(value) or len(value) == 1:
            self.problem(f"[buttons] referee_call = {_show(value)}",
                         'must be two or more calls held together, such as ["chii", "kan"] '
                         "([] for no call for a referee)")
            return d.referee_call, hold
        return tuple(value), hold

    def seat_buttons(self, t: dict, pull: str) -> list[ButtonWiring]:
        buttons: list[ButtonWiring] = []
        for seat in SEATS:
            section = f"buttons.seat{seat}"
            seat_t = t.get(f"seat{seat}")
            if seat_t is None:
                self.problem(f"[{section}]", "missing: each seat needs its chii, pon, kan and "
                             "ron buttons")
                continue
            if not isinstance(seat_t, dict):
                self.problem(f"[buttons] seat{seat} = {_show(seat_t)}",
                             f"must be a [{section}] table of chii, pon, kan, ron pins")
                continue
            for key in seat_t:
                if key not in CALLS:
                    hint = " (a seat's light goes in [lights])" if key == "light" else ""
                    self.problem(f"[{section}] {key}",
                                 f"unknown call {key!r}: calls are chii, pon, kan, ron{hint}")
            for call in CALLS:
                if call not in seat_t:
                    self.problem(f"[{section}]", f"no {call} button")
                    continue
                pin = self.pin(seat_t[call], f"[{section}] {call}",
                               f"seat {seat} {call} button", pull)
                if pin is not None:
                    buttons.append(ButtonWiring(seat, call, pin))
        return buttons

    def lights(self, t: dict) -> tuple[dict[int, int], LightSettings]:
        self.unknown_keys(t, "lights", _LIGHT_KEYS, True,
                          "seat0-seat3, active_high, pwm, winner_s, blink_s, blink_hz")
        lights: dict[int, int] = {}
        for key in t:
            if key not in _SEAT_NAMES:
                continue  # reported by unknown_keys
            seat = int(key[4:])
            pin = self.pin(t[key], f"[lights] {key}", f"seat {seat} light")
            if pin is not None:
                lights[seat] = pin
        d = LightSettings()
        light = LightSettings(
            active_high=self.flag(t, "lights", "active_high", d.active_high),
            pwm=self.flag(t, "lights", "pwm", d.pwm),
            winner=self.number(t, "lights", "winner_s", d.winner, maximum=60),
            blink=self.number(t, "lights", "blink_s", d.blink, maximum=60),
            blink_hz=self.number(t, "lights", "blink_hz", d.blink_hz, maximum=50),
        )
        return dict(sorted(lights.items())), light

    def buzzer(self, t: dict | None, light: LightSettings) -> tuple[int | None, LightSettings]:
        if t is None:
            return None, light
        self.unknown_keys(t, "buzzer", _BUZZER_KEYS, False, "pin, active_high, beep_s, beeps")
        pin = None
        if "pin" not in t:
            self.problem("[buzzer]", "no pin (leave the [buzzer] section out for no buzzer)")
        else:
            pin = self.pin(t["pin"], "[buzzer] pin", "buzzer")
        d = LightSettings()
        light = replace(
            light,
            buzzer_active_high=self.flag(t, "buzzer", "active_high", d.buzzer_active_high),
            beep=self.number(t, "buzzer", "beep_s", d.beep, maximum=10),
            beeps=self.count(t, "buzzer", "beeps", d.beeps, 1),
        )
        return pin, light


def _pin_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        m = re.fullmatch(r"(?:GPIO|BCM)(\d+)", value.strip(), re.IGNORECASE)
        if m:
            return int(m.group(1))
    return None


def _looks_like_seat(key: str) -> bool:
    return key.lower().startswith("seat") or key.isdigit() or key.lower() in (
        "east", "south", "west", "north")


def _show(value: Any) -> str:
    """A value as it would be written in TOML, for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)
